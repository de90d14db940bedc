"""Labelled variants of a paper's plan: the paper's own plan, built from a modified configuration.

Two features run a paper under another configuration and keep its outputs apart from the
declared build:

* a **reading variant** (:mod:`.readings`): an open reading of the paper, declared in its config
  section, with its tables and figures under ``<figures root>/readings/<id>/<paper>/``;
* the **bench-all plan** (:mod:`.bench_all`): a new algorithm appended to every algorithm list
  of the paper's section, under ``<results>/bench_all/<name>/<fidelity>/<paper>/``.

Both are a :class:`Variant`: the overrides merged into the paper's effective section, parameters
merged into named algorithms, algorithms added, the figures folder, and dataset aliases for the
registry's statistics; :meth:`Variant.plan` is the paper's :meth:`Experiment.plan` on
:meth:`Variant.config`. Simulation and sample shards are keyed by what they compute, so a variant
reuses every shard it shares with the declared build and computes only what differs.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from duelbench.config import deep_merge, effective_config, experiment_settings, fidelity_settings

from .contract import declaration, Plan

#: Config key of a paper section that lists its reading variants (a variant declares none).
READINGS_KEY = "readings"
#: Lists of algorithm entries inside a paper section that ``algorithm_params`` rewrites.
ALGORITHM_LISTS = ("algorithms", "variants")


@dataclass(frozen=True)
class Variant:
    """One labelled variant of ``experiment``'s plan (see the module docstring).

    Parameters
    ----------
    experiment : str
        The paper.
    label : str
        What names its rules and logs: a reading's id, or ``bench_all``.
    figures : str
        Where its tables and figures go.
    overrides : mapping
        Merged into the paper's effective section (after the active fidelity's overrides).
    algorithm_params : mapping of str to mapping
        Parameters merged into every configured entry of the named algorithms.
    extra_algorithms : tuple of str
        Appended to every ``algorithms`` list of the section that lacks them, except the lists
        ``fixed_lists`` (dotted keys) the paper declares fixed.
    aliases : mapping of str to str
        Dataset renamings inside the registry's statistic names
        (:func:`duelbench.report.checks.aliased_registry`): the same checks scored on another instance.
    """

    experiment: str
    label: str
    figures: str
    overrides: Mapping = field(default_factory=dict, hash=False, compare=False)
    algorithm_params: Mapping = field(default_factory=dict, hash=False, compare=False)
    extra_algorithms: tuple[str, ...] = ()
    fixed_lists: tuple[str, ...] = ()
    aliases: Mapping = field(default_factory=dict, hash=False, compare=False)

    def config(self, config: Mapping) -> dict:
        """The configuration whose plan is this variant (:func:`variant_config`)."""
        return variant_config(config, self.experiment, figures=self.figures, overrides=self.overrides,
                              algorithm_params=self.algorithm_params, extra_algorithms=self.extra_algorithms,
                              fixed_lists=self.fixed_lists)

    def plan(self, config: Mapping) -> tuple[Plan, dict]:
        """(the checked plan, its configuration)."""
        cfg = self.config(config)
        p = declaration(self.experiment).plan(cfg)
        p.check()
        return p, cfg


def _with_params(entries: Sequence, params: Mapping[str, Mapping]) -> list:
    """Algorithm entries (names or mappings) with ``params`` merged into the named algorithms."""
    out = []
    for entry in entries:
        e = {"name": entry} if isinstance(entry, str) else dict(entry)
        if e.get("name") in params:
            e["params"] = {**(e.get("params") or {}), **params[e["name"]]}
        out.append(e)
    return out


def _rewrite_algorithms(section, params: Mapping[str, Mapping], extra: Sequence[str] = (),
                        fixed: Sequence[str] = (), path: str = ""):
    """A copy of ``section`` with every algorithm list rewritten by :func:`_with_params`, and
    the algorithms ``extra`` appended to every ``algorithms`` list that lacks them, except the
    lists whose dotted keys are in ``fixed`` (lists a paper restricts, e.g. to batched algorithms)."""
    if not isinstance(section, Mapping):
        return copy.deepcopy(section)
    out = {}
    for k, v in section.items():
        where = f"{path}.{k}" if path else str(k)
        if k in ALGORITHM_LISTS and isinstance(v, list):
            v = _with_params(v, params)
            if k == "algorithms" and where not in fixed:
                v += [{"name": a} for a in extra if a not in {e["name"] for e in v}]
            out[k] = v
        else:
            out[k] = _rewrite_algorithms(v, params, extra, fixed, where)
    return out


def variant_config(config: Mapping, experiment: str, *, figures: str, overrides: Mapping | None = None,
                   algorithm_params: Mapping[str, Mapping] | None = None, extra_algorithms: Sequence[str] = (),
                   fixed_lists: Sequence[str] = ()) -> dict:
    """The configuration whose plan is a labelled variant of ``experiment``'s plan.

    The active fidelity's block gets ``overrides`` (after its own), the experiment section's
    algorithm entries get ``algorithm_params`` and ``extra_algorithms`` (not the lists
    ``fixed_lists``; see :func:`_rewrite_algorithms`), and the tables and figures go to ``figures``; the variant
    declares no readings of its own.
    """
    out = copy.deepcopy(dict(config))
    fid = effective_config(config)["fidelity"]
    block = fidelity_settings(config)
    section = deep_merge(experiment_settings(config, experiment), overrides or {})
    section = _rewrite_algorithms(section, algorithm_params or {}, extra_algorithms, fixed_lists)
    section.pop(READINGS_KEY, None)
    block["overrides"] = {**(block.get("overrides") or {}), experiment: section}
    block["figures"] = figures
    out.setdefault("fidelities", {})[fid] = block
    out[experiment] = {k: v for k, v in out[experiment].items() if k != READINGS_KEY}
    return out
