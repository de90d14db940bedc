"""The experiment contract: what a paper declares and what the workflow builds from it.

A paper is a package ``duelbench.experiments.<paper>`` whose ``EXPERIMENT`` is an instance of a
subclass of :class:`~duelbench.experiments.experiment.Experiment`; its ``plan(config)`` returns a
:class:`Plan`, computed from the effective configuration only, which lists

* ``shards`` — the simulation shards (:class:`~duelbench.engine.jobs.ShardSpec`), run by the
  generic ``simulate_shard`` rule or read from the results archive; ``kinds`` are the regret
  kinds its steps read (and the archive keeps);
* ``samples`` — seeded instance-sample shards (:class:`SampleShard`), e.g. random sub-matrices
  drawn from a parent matrix, run by the generic ``sample_shard`` rule;
* ``steps`` — the aggregates, tables, figures and checks: each :class:`Step` is one rule whose
  job calls its function (referenced as an object) with a :class:`StepContext`, on the
  framework's harness (:func:`run_harnessed`);
* ``items`` — the paper's tables and figures (:class:`Item`), each with a caption and the step
  outputs that show it.

The generic rules (``workflow/rules/experiments.smk``) turn every plan into rules named
``<paper>_steps`` (running the steps in declared order), a target rule ``<paper>`` and entries of ``all``. Labelled variants of a plan
(reading variants, the bench-all plan) are :mod:`.variants`; the plans the workflow builds and
the step jobs' entry point are :mod:`.planning`.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import pkgutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duelbench.config import ConfigError
from duelbench.data.paths import display_path
from duelbench.engine.jobs import ShardSpec
from duelbench.provenance.codehash import PROVENANCE, closure_hash
from duelbench.provenance.joblog import log_to
from duelbench.provenance.sidecar import Timer, write_sidecar
from duelbench.report.checks import aliased_registry, load_registry

from .aggregate import load_group


def packages() -> tuple[str, ...]:
    """The experiment packages: every sub-package of :mod:`duelbench.experiments` (adding a
    paper is adding a package), in name order."""
    return tuple(sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.ispkg))


ITEM_KINDS = ("figure", "table", "checks")


@dataclass(frozen=True)
class Item:
    """One table or figure of a paper as the suite rebuilds it.

    Parameters
    ----------
    id : str
        Short identifier used in file names and the report, e.g. ``"figure1"``.
    kind : {"figure", "table", "checks"}
    title : str
        The paper's own name for it, e.g. ``"Figure 1 (regret vs. time, Condorcet panels)"``.
    caption : str
        What the paper shows, what the suite runs, and the readings taken on ambiguities.
    outputs : tuple of str
        Paths (step outputs) that show the item: the PNG of a figure, the CSV/Markdown of a table.
    in_paper : bool
        Whether the item is one of the paper's own tables or figures (each gets a row of the
        replication status, checked or not); False for the suite's own tables.
    judged_by : tuple of str
        The ``item`` names of the published-number registry whose checks judge it.
    """

    id: str
    kind: str
    title: str
    caption: str
    outputs: tuple[str, ...]
    in_paper: bool = False
    judged_by: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The paper's short name of the item, e.g. ``"Figure 2"`` (the title up to " (" or ":")."""
        return self.title.split(" (")[0].split(":")[0].strip()

    def __post_init__(self):
        if self.kind not in ITEM_KINDS:
            raise ValueError(f"item {self.id}: kind must be one of {ITEM_KINDS}, got {self.kind!r}")


@dataclass(frozen=True)
class Step:
    """One workflow step: ``function(ctx)`` from named inputs to named outputs.

    Parameters
    ----------
    name : str
        Rule name suffix (the rule is ``<paper>_<name>``).
    function : callable
        The step function (a method of the paper's
        :class:`~duelbench.experiments.experiment.Experiment` or a plain function), run by
        :func:`run_harnessed`.
    outputs : mapping of str to path
        Every output gets a provenance sidecar ``<path>.json`` (written by the harness).
    inputs : mapping of str to path or list of paths
        Files the step reads besides shards (data, registries, other steps' outputs).
    shards : bool
        Whether the step reads the plan's simulation shards (input ``shards``).
    samples : str, tuple of str or None
        Family (or families) of sample shards the step reads (input ``samples``, in family
        order), see :class:`SampleShard`.
    settings : mapping
        The settings its outputs depend on (a rule parameter: a change reruns the step).
    message : str
        One line shown when the step starts.
    host_dependent : bool
        Whether the outputs depend on the machine (a timing, never a result or a check): such a
        step runs in a job of its own, built only when its target ``<paper>_timing`` is named,
        never by ``all``; no other step may read its outputs.
    """

    name: str
    function: Callable
    outputs: Mapping[str, str]
    inputs: Mapping[str, Any] = field(default_factory=dict)
    shards: bool = False
    samples: str | tuple[str, ...] | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    message: str = ""
    host_dependent: bool = False

    def input_files(self) -> list[str]:
        """Every file of :attr:`inputs`, in declared order (lists flattened)."""
        return _input_files(self.inputs)

    @property
    def families(self) -> tuple[str, ...]:
        """The sample families the step reads (``samples`` as a tuple)."""
        if self.samples is None:
            return ()
        return (self.samples,) if isinstance(self.samples, str) else tuple(self.samples)


@dataclass(frozen=True)
class SampleShard:
    """Samples ``[a, b)`` of one seeded instance-sample family.

    ``function`` (``"module:function"`` of the paper's package) is called as ``function(job)``
    and returns a mapping of equal-length 1-D arrays (one row per sample), written to ``path``
    as ``.npz``.  Sample ``i`` must depend only on (``job``, ``i``), so a shard's content does
    not depend on how a family is split into shards.
    """

    experiment: str
    family: str
    function: str
    job: Mapping[str, Any]
    a: int
    b: int
    path: str
    datasets: tuple[str, ...] = ()
    #: the columns the family's readers use: what the archive keeps and readers get (all if empty)
    columns: tuple[str, ...] = ()

    def job_params(self) -> str:
        """Canonical JSON of what the job needs (a rule parameter)."""
        return json.dumps({"experiment": self.experiment, "family": self.family, "function": self.function,
                           "job": self.job, "a": self.a, "b": self.b, "datasets": list(self.datasets)},
                          sort_keys=True, separators=(",", ":"))


@dataclass
class Plan:
    """What one paper's package declares for the active configuration (see the module doc)."""

    name: str
    settings: dict
    steps: list[Step]
    items: list[Item] = field(default_factory=list)
    shards: list[ShardSpec] = field(default_factory=list)
    kinds: tuple[str, ...] = ("copeland",)
    samples: list[SampleShard] = field(default_factory=list)
    #: (path, kind): the regret-curve table a step writes (columns ``dataset``, ``algorithm``,
    #: ``param_hash``, ``t``, ``mean`` and, if it holds several regret kinds, ``kind``) and the
    #: kind the paper plots; what ``duelbench bench-all`` ranks (None: no regret curves)
    curves: tuple[str, str] | None = None
    #: shard path -> the regret kinds of that shard, for a plan whose shards are read with
    #: different kinds (the benchmark reads each paper's shards with that paper's kinds, so that
    #: it adds no kind to their archive entries); every other shard has :attr:`kinds`
    shard_kinds: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: whether ``all`` (``make figures``) builds the plan's outputs; else only its target does
    in_all: bool = True

    def kinds_of(self, spec: ShardSpec) -> tuple[str, ...]:
        """The regret kinds the plan reads (and the archive keeps) for shard ``spec``."""
        return tuple(self.shard_kinds.get(spec.path, self.kinds))

    def step(self, name: str) -> Step:
        for s in self.steps:
            if s.name == name:
                return s
        raise KeyError(f"{self.name} has no step {name!r} (steps: {', '.join(s.name for s in self.steps)})")

    def outputs(self) -> list[str]:
        """Every output of every step (sidecars not included)."""
        return [p for s in self.steps for p in s.outputs.values()]

    def results(self) -> list[str]:
        """The outputs of the steps that are not host dependent (what ``all`` builds)."""
        return [p for s in self.steps if not s.host_dependent for p in s.outputs.values()]

    def timings(self) -> list[str]:
        """The outputs of the host-dependent steps (built only by ``<paper>_timing``)."""
        return [p for s in self.steps if s.host_dependent for p in s.outputs.values()]

    def sample_family(self, family: str) -> list[SampleShard]:
        return [s for s in self.samples if s.family == family]

    def check(self) -> None:
        """Consistency of the declaration: unique step names and outputs, items that point at
        step outputs, steps that read only what earlier steps wrote (they run in declared order)
        and nothing a host-dependent step wrote, callable step functions, declared sample
        families."""
        names = [s.name for s in self.steps]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ConfigError(f"{self.name}: step names declared twice: {dup}")
        outs = self.outputs()
        dup = sorted({p for p in outs if outs.count(p) > 1})
        if dup:
            raise ConfigError(f"{self.name}: outputs declared by two steps: {dup[:3]}")
        known = set(outs)
        for item in self.items:
            missing = [p for p in item.outputs if p not in known]
            if missing:
                raise ConfigError(f"{self.name}: item {item.id} shows {missing[0]}, which no step writes")
        families = {s.family for s in self.samples}
        writer = {p: (i, s) for i, s in enumerate(self.steps) for p in s.outputs.values()}
        for i, s in enumerate(self.steps):
            for p in s.input_files():
                j, w = writer.get(p, (-1, None))
                if w is not None and w.host_dependent:
                    raise ConfigError(f"{self.name}: step {s.name} reads {p} of the host-dependent step "
                                      f"{w.name} (a timing is never an input)")
                if j >= i:
                    raise ConfigError(f"{self.name}: step {s.name} reads {p}, written by the step {w.name} "
                                      f"declared after it (steps run in declared order)")
            if not callable(s.function):
                raise ConfigError(f"{self.name}: step {s.name}'s function must be a callable, got {s.function!r}")
            for family in s.families:
                if family not in families:
                    raise ConfigError(f"{self.name}: step {s.name} reads sample family {family!r}, "
                                      f"not declared (families: {sorted(families)})")


def paper_items(items: Sequence[Item], judged_by: Mapping[str, Sequence[str]]) -> list[Item]:
    """``items`` with those named in ``judged_by`` (item id -> registry item names, possibly
    none) marked as the paper's own tables and figures."""
    unknown = sorted(set(judged_by) - {i.id for i in items})
    if unknown:
        raise ConfigError(f"paper items {unknown} are not declared items")
    return [dataclasses.replace(i, in_paper=True, judged_by=tuple(judged_by[i.id])) if i.id in judged_by else i
            for i in items]


def _rst_text(text: str) -> str:
    """Plain text safe in reStructuredText: markup characters are backslash-escaped (a caption
    holds formulas such as ``|p_ij - 1/2|``, which would otherwise be read as markup)."""
    for ch in "\\*`|_[]<>":
        text = text.replace(ch, "\\" + ch)
    return text


def caption_text(plan: "Plan", item: Item) -> str:
    """The report caption of an item (reStructuredText): its title, caption and files."""
    files = ", ".join(f"``{Path(p).name}``" for p in item.outputs)
    return (f"**{_rst_text(item.title)}** ({plan.name}, fidelity {plan.settings.get('fidelity', '?')})\n\n"
            f"{_rst_text(item.caption)}\n\nFiles: {files}.\n")


def write_caption(plan: "Plan", item: Item, folder: str) -> str:
    """Write the caption of ``item`` to ``<folder>/<experiment>/<item>.rst`` (only when it
    changed) and return the path: Snakemake's report reads captions from files."""
    path = Path(folder) / plan.name / f"{item.id}.rst"
    text = caption_text(plan, item)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return str(path)


def package(name: str):
    """The experiment package ``duelbench.experiments.<name>``."""
    if name not in packages():
        raise ConfigError(f"unknown experiment {name!r} (experiments: {', '.join(packages())})")
    return importlib.import_module(f"{__package__}.{name}")


def declaration(name: str):
    """The :class:`~duelbench.experiments.experiment.Experiment` that declares ``name`` (its
    package's ``EXPERIMENT``)."""
    module = package(name)
    try:
        return module.EXPERIMENT
    except AttributeError:
        raise ConfigError(f"experiment package {module.__name__} defines no EXPERIMENT (an instance of a subclass "
                          "of duelbench.experiments.experiment.Experiment)") from None


def configured(config: Mapping) -> list[str]:
    """The experiment packages that have a section in ``config``."""
    return [name for name in packages() if isinstance(config.get(name), Mapping)]


def code_hash(experiment: str) -> str:
    """Hash of the normalised source of the package's import closure (provenance excluded):
    editing the experiment's code, not its comments, reruns its steps."""
    folder = Path(package(experiment).__file__).parent
    return closure_hash(*sorted(folder.glob("*.py")), exclude=PROVENANCE)


class Files(dict):
    """Named files of a step (``ctx.input.regret`` or ``ctx.input["regret"]``)."""

    def __getattr__(self, name: str):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"no file named {name!r} (named: {', '.join(self)})") from None


@dataclass
class StepContext:
    """What a step function gets: the plan, the effective configuration, named files, the log."""

    plan: Plan
    config: dict
    step: Step
    input: Files
    output: Files
    log: str | None = None
    #: dataset renamings of a reading variant, applied to the registry's statistics (:meth:`registry`)
    aliases: dict = field(default_factory=dict)

    @property
    def settings(self) -> dict:
        return self.plan.settings

    def registry(self, path: str) -> dict:
        """The published-number registry at ``path`` as this plan scores it (a reading variant's
        dataset aliases applied, :func:`duelbench.report.checks.aliased_registry`)."""
        return aliased_registry(load_registry(path), self.aliases)

    def load(self, specs: Sequence[ShardSpec]):
        """The runs of one job's shards (in run order), from the archive when it holds them."""
        return load_group(specs, kinds=self.plan.kinds_of(specs[0]))


def named_files(named: Mapping[str, Any] | Iterable) -> Files:
    return Files({k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in dict(named).items()})


def paths_of(value: Any) -> list[str]:
    """The file(s) of one named input: a path, or a list or tuple of paths."""
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]


def _input_files(named: Mapping[str, Any]) -> list[str]:
    """Every file a step read, in input order (lists flattened)."""
    return [p for value in named.values() for p in paths_of(value)]


def run_harnessed(function: Callable[[StepContext], Mapping | None], ctx: StepContext) -> None:
    """Run a step function with the framework's harness: what it prints goes to the step's log,
    it is timed, and each output gets a sidecar recording the step's inputs, its settings (the
    ``config`` of the sidecar), the experiment's seed and the fields the function returned."""
    with log_to(ctx.log), Timer() as t:
        extra = function(ctx) or {}
    settings = ctx.step.settings
    seeds = {"seed": int(settings["seed"])} if "seed" in settings else None
    inputs = [display_path(f) for f in _input_files(ctx.input)]
    for key in ctx.step.outputs:  # the rule's outputs also hold the sidecars (<key>_meta)
        write_sidecar(ctx.output[key], inputs=inputs, config=dict(settings), seeds=seeds,
                      extra={"experiment": ctx.plan.name, "step": ctx.step.name, **dict(extra)}, **t.as_kwargs())
