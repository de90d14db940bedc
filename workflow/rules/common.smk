# Shared machinery, functions only (the rules are in the other rules files): configuration
# checks, experiment and shard registration, the input and output functions of the generic
# rules. Rules stay thin; their jobs call entry points of duelbench.experiments.

import contextlib
import functools
import json
import re

from snakemake.exceptions import WorkflowError

import duelbench.config as dbc
import duelbench.engine.jobs as dbj
import duelbench.archive.sources as dbx_archive_sources
import duelbench.archive.fallbacks as dbx_fallbacks
import duelbench.progress as dbx_progress
import duelbench.engine.shard_sources as dbx_shard_sources
import duelbench.experiments.bundling as dbx_bundling
import duelbench.experiments.contract as dbx_contract
import duelbench.experiments.reporting as dbx_reporting
import duelbench.experiments.samples as dbx_samples
import duelbench.report.uncertainty as dbx_uncertainty
from duelbench.data import mslr as dbx_mslr
from duelbench.algorithms import registry as dbx_registry
from duelbench.engine.shard_sources import sources_for
from duelbench.provenance.sidecar import atomic_write_text

# ---------------------------------------------------------------------------------------------
# configuration: schema, fidelity overrides, semantic checks
# ---------------------------------------------------------------------------------------------
CONFIG_SCHEMA = os.path.join(CHECKOUT, "workflow", "schemas", "config.schema.yaml")

# The user's layers (USER_LAYERS, read in the Snakefile) win over the fidelity's overrides;
# `duelbench config-check` decides with the same function.
try:
    _effective, _notes = dbc_files.resolve_config(
        config, USER_LAYERS, schema=CONFIG_SCHEMA
    )
except dbc.ConfigError as _exc:
    raise WorkflowError(
        f"{_exc}\n(workflow/schemas/*.schema.yaml in {CHECKOUT} document every key)"
    ) from None
if workflow.is_main_process:
    for _note in _notes:
        print(f"configuration: {_note}", file=sys.stderr)
# Fill in schema defaults (snakemake's validator does that) on the effective configuration.
validate(_effective, CONFIG_SCHEMA)
# From here on, `config` is the effective configuration of the active fidelity.
config.clear()
config.update(_effective)

FIDELITY = config["fidelity"]
# Jobs run as plain Python processes (`python -m duelbench.job_main` and
# workflow/scripts/steps.py: faster to start than a `run` block, which re-reads the whole
# workflow); they inherit the environment set in the Snakefile.
RESULTS = dbc.results_root(config)
# The data folder is config `data`; jobs' dataset loaders get it as $DUELBENCH_DATA_DIR, so
# they read the MSLR matrices from <DATA>/mslr, where the fetch_mslr rule puts them.
DATA = str(config.get("data", "data")).rstrip("/")
os.environ.update(DUELBENCH_DATA_DIR=os.path.abspath(DATA))
# The results archive (docs/archive.md): config `archive` (a folder, relative to the checkout),
# or `off` to rebuild every shard from scratch. Jobs read it from $DUELBENCH_ARCHIVE.
_archive = str(config.get("archive", "archive"))
os.environ[dbx_archive_sources.ENV] = (
    "off"
    if _archive.strip().lower() in dbx_archive_sources.OFF
    else os.path.join(CHECKOUT, _archive)
)


# ---------------------------------------------------------------------------------------------
# registration: experiments' final outputs and the shards they need
# ---------------------------------------------------------------------------------------------
#: experiment name -> its final outputs (each target rule is generated in the Snakefile)
EXPERIMENTS = {}
#: every shard requested by some experiment (path -> ShardSpec)
SHARDS = dbj.ShardPlan()


def sidecar(path):
    """Provenance sidecar of an output."""
    return str(path) + ".json"


def with_sidecars(paths):
    """``paths`` followed by their sidecars."""
    paths = [str(p) for p in paths]
    return paths + [sidecar(p) for p in paths]


#: experiments left out of `all` (built only when named: host-dependent timings)
NOT_DEFAULT = set()


def register_experiment(name, outputs, default=True):
    """Declare an experiment's final outputs: creates the target rule `name` and, unless
    ``default`` is False, adds them to `all`."""
    if name in EXPERIMENTS:
        raise WorkflowError(f"experiment {name!r} is registered twice")
    if name in ("all",) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise WorkflowError(f"invalid experiment name {name!r}")
    EXPERIMENTS[name] = [str(p) for p in outputs]
    if not default:
        NOT_DEFAULT.add(name)
    return EXPERIMENTS[name]


def register_shards(specs, owner):
    """Declare the shards an experiment needs; returns their paths (the aggregate rule's input)."""
    try:
        return SHARDS.add(specs, owner=owner)
    except dbc.ConfigError as exc:
        raise WorkflowError(f"Invalid configuration: {exc}") from None


#: every sample shard requested by some experiment (path -> SampleShard)
SAMPLES = {}


def register_samples(shards):
    """Declare an experiment's sample shards (the generic sample_shard rule computes them)."""
    for shard in shards:
        old = SAMPLES.setdefault(shard.path, shard)
        if old.job_params() != shard.job_params():
            raise WorkflowError(
                f"sample shard {shard.path} is declared twice with different jobs"
            )
    return [s.path for s in shards]


def planned_input(sources, item):
    """An item's archive entry when valid for this code, else its results file, set aside first
    (with a warning) if it does not match its provenance sidecar. A set-aside file is forced to
    be recomputed: Snakemake would otherwise leave a missing intermediate file alone while the
    outputs that read it look up to date, and those outputs may hold the rejected file's numbers.
    """
    path = sources.planned_source(item)
    if sources.rejected(item):
        workflow.dag.forcefiles.update(with_sidecars([item.path]))
    return path


def sample_source(shard):
    """A sample shard's input (:func:`planned_input`)."""
    return planned_input(dbx_samples.sources(), shard)


def written_by_build():
    """Every output a job of this build writes (normalised paths)."""
    return {
        os.path.normpath(str(f))
        for job in workflow.dag.needrun_jobs()
        for f in job.output
    }


def name_build_shards(written):
    """Write the shard paths this build writes to a file of this build and point the bundle
    jobs at it (:func:`duelbench.engine.jobs.build_shards`), so that a bundle computes only
    those of its members; returns the file."""
    shards = sorted(p for p in written if p in SHARDS)
    folder = os.path.join(".snakemake", "duelbench")
    os.makedirs(folder, exist_ok=True)
    path = os.path.abspath(os.path.join(folder, f"build-shards-{os.getpid()}.txt"))
    atomic_write_text(path, "".join(p + "\n" for p in shards))
    os.environ[dbj.BUILD_SHARDS_ENV] = path
    return path


def forget_build_shards():
    """Remove the file of :func:`name_build_shards` when the build ends."""
    path = os.environ.pop(dbj.BUILD_SHARDS_ENV, None)
    if path:
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)


def fallback_report(written):
    """Lines naming the shards this build computes instead of reading them from the archive,
    per reason (missing, stale code, corrupt, ...), with their estimated CPU time: what the
    input functions found while the DAG was built, limited to the shards a job of this build
    writes (``written``; Snakemake leaves a missing shard alone while the outputs that read it
    are current).
    """
    fallbacks = {}
    for sources in [*dbx_shard_sources.opened(), dbx_samples.sources()]:
        fallbacks.update(
            (path, fb) for path, fb in sources.fallbacks.items() if path in written
        )
    return dbx_fallbacks.report(fallbacks.values())


def shard_progress():
    """A watcher of the shard and sample jobs this build runs (None when it runs none): a line
    with the share done and the time left every 30 s, from the measured throughput and each
    shard's estimated CPU time (:func:`duelbench.archive.fallbacks.estimated_costs`)."""
    items = []
    for job in workflow.dag.needrun_jobs():
        if job.rule.name in ("simulate_shard", "sample_shard"):
            npz = os.path.normpath(str(job.output.npz))
            items.append(
                SAMPLES[npz] if job.rule.name == "sample_shard" else SHARDS.get(npz)
            )
    if not items:
        return None
    # a job writes its sidecar last, when it has finished
    sidecars = [sidecar(item.path) for item in items]
    return dbx_progress.FileProgress(
        sidecars, dbx_fallbacks.estimated_costs(items), label="shards"
    )


onstart:
    _written = written_by_build()
    name_build_shards(_written)
    for _line in fallback_report(_written):
        print(_line, file=sys.stderr, flush=True)
    _progress = shard_progress()
    if _progress is not None:
        _progress.start_thread()


onsuccess:
    forget_build_shards()


onerror:
    forget_build_shards()


def all_targets():
    """The outputs of `all`: every registered experiment's but those of :data:`NOT_DEFAULT`."""
    return [
        p
        for name in sorted(EXPERIMENTS)
        if name not in NOT_DEFAULT
        for p in EXPERIMENTS[name]
    ]


@functools.lru_cache(maxsize=None)
def code_hash(algorithm):
    """sha256 of the algorithm's source + engine + stats code (a param of the shard rules: edits rerun its shards)."""
    return dbx_registry.source_hash(algorithm)


def shard_spec(wildcards):
    try:
        return SHARDS.get(dbj.shard_path_of(RESULTS, wildcards))
    except dbc.ConfigError as exc:
        raise WorkflowError(str(exc)) from None


def shard_runtime(wildcards):
    """SLURM time limit in minutes (local runs ignore it): 10 min plus 1 min per 2e6 steps,
    that is at least 3x the CPU time of the slowest algorithm measured at paper fidelity
    (about 115,000 steps per CPU-second: ECW-RMED at K = 64).

    Override with --set-resources simulate_shard:runtime=...
    """
    return runtime_minutes(
        int(wildcards.horizon) * (int(wildcards.b) - int(wildcards.a))
    )


def runtime_minutes(steps):
    """SLURM time limit in minutes of ``steps`` simulation steps (see :func:`shard_runtime`)."""
    return 10 + steps // 2_000_000


# ---------------------------------------------------------------------------------------------
# bundles: small shards computed several to a process (duelbench.experiments.bundling); a
# bundled shard's own job only links the bundle's file into place
# ---------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _bundles():
    """(shard path -> bundle, bundle folder -> bundle), planned once: input functions run after
    every experiment has registered its shards."""
    bundles = dbx_bundling.plan_bundles(SHARDS.specs())
    return dbx_bundling.bundle_index(bundles), {b.folder(RESULTS): b for b in bundles}


def shard_bundle(wildcards):
    """The bundle of the shard named by the simulate_shard rule's wildcards, or None."""
    return _bundles()[0].get(dbj.shard_path_of(RESULTS, wildcards))


def bundle_folder(wildcards):
    """Input function of simulate_shard: its bundle's folder, if it has one."""
    bundle = shard_bundle(wildcards)
    return [bundle.folder(RESULTS)] if bundle is not None else []


def staged_shard(wildcards):
    """Parameter of simulate_shard: where its bundle left the shard ('' when it runs alone)."""
    bundle = shard_bundle(wildcards)
    if bundle is None:
        return ""
    return bundle.staged(RESULTS, dbj.shard_path_of(RESULTS, wildcards))


def bundled_first(wildcards):
    """Priority of simulate_shard: a bundled shard's job (it only links the bundle's file into
    place) before any other simulation, so that the shard reaches its path as soon as its
    bundle ends."""
    return 1 if shard_bundle(wildcards) is not None else 0


def bundle_of(wildcards):
    """The bundle named by the simulate_bundle rule's wildcards."""
    w = wildcards
    folder = os.path.normpath(
        f"{RESULTS}/{w.fidelity}/bundles/{w.algorithm}/{w.bundle}"
    )
    try:
        return _bundles()[1][folder]
    except KeyError:
        raise WorkflowError(
            f"no bundle {folder} is planned for the configured shards"
        ) from None


def bundle_data(wildcards):
    """The data files the shards of a bundle read."""
    datasets = {s.dataset for s in bundle_of(wildcards).shards}
    return sorted({f for d in datasets for f in dbc.dataset_inputs(d, DATA)})


def bundle_runtime(wildcards):
    """SLURM time limit in minutes of a bundle: the sum of its shards' (:func:`shard_runtime`)."""
    return sum(
        runtime_minutes(dbx_fallbacks.work_of(s)[0])
        for s in bundle_of(wildcards).shards
    )


# ---------------------------------------------------------------------------------------------
# numba warm-up: compile an algorithm's kernels into NUMBA_CACHE_DIR once, before its shards.
# The flag name carries the algorithm's code hash: editing the algorithm asks for a new flag,
# so the warm-up reruns and exactly that algorithm's shards follow (their input set and their
# `code` param changed). The flag content is the hash itself, so recreating an identical flag
# is not an "updated input".
# ---------------------------------------------------------------------------------------------
def warmup_flag(algorithm):
    return dbj.warmup_flag(RESULTS, algorithm, code_hash(algorithm))


def sample_of(wildcards):
    """The declared SampleShard named by the sample_shard rule's wildcards."""
    w = wildcards
    path = os.path.normpath(
        f"{RESULTS}/{w.fidelity}/samples/{w.experiment}/{w.family}/{w.layout}/samples-{w.a}-{w.b}.npz"
    )
    try:
        return SAMPLES[path]
    except KeyError:
        raise WorkflowError(
            f"no configured experiment declares the sample shard {path}"
        ) from None


# ---------------------------------------------------------------------------------------------
# input and output functions of the experiments' step rules (experiments.smk)
# ---------------------------------------------------------------------------------------------
def step_shards(plan):
    """Input function: each shard's archive entry when valid, else its results file
    (:func:`planned_input`: recomputed if it does not match its provenance sidecar)."""

    def inputs(wildcards):
        return [
            planned_input(sources_for(plan.kinds_of(spec)), spec)
            for spec in plan.shards
        ]

    return inputs


def step_samples(plan, families):
    """Input function: each sample shard's archive entry when valid, else its results file."""

    def inputs(wildcards):
        return [
            sample_source(shard)
            for family in families
            for shard in plan.sample_family(family)
        ]

    return inputs


#: Outputs shown in the Snakemake report (`snakemake --report`): figures as PNG, tables as CSV.
REPORT_SUFFIXES = (".png", ".csv")


def step_outputs(plan, step, in_report=True):
    """Named outputs of a step and their sidecars; what an item shows goes to the report, with
    the item's caption (written from the plan by dbx_contract.write_caption; a figure's with its
    error bars, their source of variability and its compute, as in REPORT.md)."""
    shown = {p: item for item in plan.items for p in item.outputs} if in_report else {}
    out = {}
    for key, path in step.outputs.items():
        item = shown.get(path)
        if item is not None and path.endswith(REPORT_SUFFIXES):
            caption = dbx_contract.write_caption(
                plan,
                dbx_uncertainty.with_statement(plan, item),
                f".snakemake/report_captions/{FIDELITY}",
            )
            out[key] = report(
                path,
                caption=os.path.abspath(caption),
                category=plan.name,
                subcategory=item.title,
                labels={"item": item.id, "file": os.path.basename(path)},
            )
        else:
            out[key] = path
        out[f"{key}_meta"] = sidecar(path)
    return out


def _with_readers(steps, names):
    """``names`` and the names of the steps that read, directly or not, what those write."""
    names = set(names)
    while True:
        written = {p for s in steps if s.name in names for p in s.outputs.values()}
        more = {s.name for s in steps if written.intersection(s.input_files())} - names
        if not more:
            return names
        names |= more


def _with_writers(steps, names):
    """``names`` and the names of the steps that write, directly or not, what those read."""
    names = set(names)
    while True:
        read = {p for s in steps if s.name in names for p in s.input_files()}
        more = {s.name for s in steps if read.intersection(s.outputs.values())} - names
        if not more:
            return names
        names |= more


def plan_jobs(plan, prefix, wanted=None, foreign=frozenset()):
    """(name of the rule, steps) of each job running ``plan``'s steps (experiments.smk), in
    declared order within a job:

    * `<prefix>steps`: the steps that are not host dependent;
    * `<prefix>joined_steps`: of those, the steps that read ``foreign`` files (other plans'
      outputs: the comparison of the reading variants) and the steps that read what they write,
      so that the paper's own steps do not wait for the other plans;
    * `<prefix><step>`: each host-dependent step alone.

    With ``wanted`` (the files read outside the plan), `<prefix>steps` holds only the steps that
    write a wanted file and the steps those read from; the others go to `<prefix>other_steps`.
    """
    steps = [s for s in plan.steps if not s.host_dependent]
    if wanted is not None:
        need = _with_writers(
            steps, {s.name for s in steps if wanted.intersection(s.outputs.values())}
        )
        groups = [
            (f"{prefix}steps", [s for s in steps if s.name in need]),
            (f"{prefix}other_steps", [s for s in steps if s.name not in need]),
        ]
    else:
        late = _with_readers(
            steps, {s.name for s in steps if foreign.intersection(s.input_files())}
        )
        groups = [
            (f"{prefix}steps", [s for s in steps if s.name not in late]),
            (f"{prefix}joined_steps", [s for s in steps if s.name in late]),
        ]
    groups += [(f"{prefix}{s.name}", [s]) for s in plan.steps if s.host_dependent]
    return [(name, group) for name, group in groups if group]


def plan_inputs(plan, steps, listing):
    """Named inputs of the job running ``steps`` of ``plan``: what each step reads that no step
    of the job writes (`<step>__<key>`) and, when a step reads shards or sample shards, the
    plan's shard list (`shard_list`, :func:`shard_list_inputs`)."""
    written = {p for s in steps for p in s.outputs.values()}
    named = {}
    for s in steps:
        for key, value in s.inputs.items():
            paths = [p for p in dbx_contract.paths_of(value) if p not in written]
            if paths:
                named[f"{s.name}__{key}"] = paths
    if any(s.shards or s.families for s in steps):
        named["shard_list"] = listing
    return named


def shard_list_path(log_folder):
    """The shard list of a plan (its rule `<prefix>shard_list`)."""
    return f"{RESULTS}/{FIDELITY}/shard_lists/{log_folder}.json"


def shard_list_inputs(plan):
    """Named inputs of a plan's shard list: its shards (`shards`) and each sample family's shards
    (`samples__<family>`), each an archive entry when valid, else a results file.

    The list stands between the shards and the plan's job so that the job has a few inputs, not
    thousands: Snakemake checks the size of every input of every job ready to run each time it
    schedules, which with every archive entry an input of every plan job took about two thirds
    of a core for the whole build. The list jobs (workflow/scripts/shard_list.py) run first
    (priority), a fraction of a second each.
    """
    named = {}
    if plan.shards:
        named["shards"] = step_shards(plan)
    for family in dict.fromkeys(s.family for s in plan.samples):
        named[f"samples__{family}"] = step_samples(plan, (family,))
    return named


def plan_outputs(plan, steps, in_report=True):
    """Named outputs (`<step>__<key>`, with sidecars) of the job running ``steps`` of ``plan``."""
    return {
        f"{s.name}__{key}": path
        for s in steps
        for key, path in step_outputs(plan, s, in_report).items()
    }


# ---------------------------------------------------------------------------------------------
# inputs and parameters of the report rules (report.smk)
# ---------------------------------------------------------------------------------------------
def _items_json():
    """Every experiment's declared items, as a rule parameter of the report rules."""
    import dataclasses

    return json.dumps(
        {n: [dataclasses.asdict(i) for i in p.items] for n, p in PLANS.items()},
        sort_keys=True,
    )


def _report_code(module):
    """Hash of a report module's code closure (a parameter of the report rules: editing the code reruns them)."""
    from duelbench.provenance.codehash import module_closure_hash

    return module_closure_hash(module)


def _papers_checks(wildcards=None):
    """Every registered checks.csv (read when the DAG is built, after all rules files are included)."""
    return sorted(
        p
        for name, outs in EXPERIMENTS.items()
        if name != "report"
        for p in outs
        if os.path.basename(p) == "checks.csv"
    )


def _papers_outputs(wildcards=None):
    """Every output of the experiments that have checks, and of the suite's own experiments
    that `all` builds (REPORT.md shows their items)."""
    papers = {os.path.basename(os.path.dirname(p)) for p in _papers_checks()}
    papers |= {n for n in dbx_reporting.SUITE_SECTIONS if n not in NOT_DEFAULT}
    return sorted(
        p for name, outs in EXPERIMENTS.items() if name in papers for p in outs
    )
