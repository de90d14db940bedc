"""Put every finished shard the configured experiments plan into the results archive.

::

    python -m duelbench.experiments.archiving [--archive DIR] [--config FILE]            # add
    python -m duelbench.experiments.archiving [--archive DIR] [--config FILE] --report   # per paper
    python -m duelbench.experiments.archiving [--archive DIR] [--config FILE] --prune    # drop unplanned

Plans every experiment of the configuration (default: ``config/config.yaml``) at each archived
fidelity (``ARCHIVED_FIDELITIES``: the paper build, and the quick build that CI runs, so that CI
reads the quick simulations instead of recomputing them while their code is unchanged; ``--fidelity``
picks others) and archives each simulation shard and sample shard whose results file and provenance sidecar
exist: a simulation shard with the union of the regret kinds of the experiments that read it,
a sample shard with all its columns.  A shard computed by other code or under another
``requirements.lock`` (e.g. one a running build has yet to recompute) is not archived: the others
are, the refused ones are listed on stderr and the exit status is 1; an entry already valid is
left as it is, except that the CPU time its shard's sidecar measured is added to its manifest
line when the line has none (:meth:`duelbench.archive.store.Archive.record_measured`).
A long build runs this periodically (``workflow/scripts/archive_finished_shards.sh``) and
commits ``archive/``, so a build stopped on one machine resumes on another.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Mapping, Sequence

from duelbench.archive.store import VALID, Archive
from duelbench.engine import shard_archive
from duelbench.engine import archive_cli
from duelbench.engine.archive_cli import computed_here
from duelbench.engine.shard_sources import ShardSources
from duelbench.engine.shards import load_shards
from duelbench.provenance.sidecar import run_measurement

from duelbench.config.files import CHECKOUT, DEFAULT_CONFIG, checkout_config
from .contract import configured
from .planning import plan, plans
from .samples import KIND as SAMPLES, SampleSources, archive_sample_shards, entry_path, lookup_entry, refusal

#: The fidelities whose shards the archive holds: the paper-fidelity figures, and the quick
#: build of every paper that CI runs (``tests/test_replication_quick.py``). Smoke shards take
#: seconds and are never archived.
ARCHIVED_FIDELITIES = ("paper", "quick")


def planned(config: Mapping) -> tuple[dict, dict, list]:
    """(shard path -> spec, shard path -> kinds, sample shards) over every configured experiment
    and its reading variants."""
    specs, kinds, samples, seen = {}, {}, [], set()
    for name in configured(config):
        declared, variants = plans(config, name)
        for p in (declared, *variants.values()):
            for spec in p.shards:
                specs.setdefault(spec.path, spec)
                kinds.setdefault(spec.path, set()).update(p.kinds_of(spec))
            samples.extend(s for s in p.samples if s.path not in seen)
            seen.update(s.path for s in p.samples)
    return specs, kinds, samples


def _measurement_for(archive: Archive, entry: str, results_path: str,
                     why_not: Callable[[], str | None]) -> dict | None:
    """The measurement of the finished results file that a valid ``entry`` holds, to add to the
    entry's manifest line: None if the line has one, or ``why_not()`` finds a reason the file is
    not this code's (other code, another lock file, bytes its sidecar does not record)."""
    if archive.measured(entry) is not None:
        return None
    measured = run_measurement(results_path)
    return measured if measured is not None and why_not() is None else None


def _not_computed_here(path: str, algorithm: str) -> str | None:
    try:
        computed_here(path, algorithm)
    except ValueError as exc:
        return str(exc)
    return None


def archive_finished(config: Mapping, archive_root: str | os.PathLike) -> tuple[int, int, list[str]]:
    """Archive every finished planned shard.

    Returns (simulation shards added, sample shards added, refusals): a finished shard computed
    by other code or under another lock file (e.g. one a running build has yet to recompute) is
    not archived, and its reason is listed; every other shard still is.  A shard already valid
    in the archive only gets its measured CPU time on its manifest line, if it has none.
    """
    archive = Archive(archive_root)
    specs, kinds, samples = planned(config)
    added, refused, measured = 0, [], {}
    for path, spec in sorted(specs.items()):
        if not (os.path.isfile(path) and os.path.isfile(path + ".json")):
            continue
        want = sorted(kinds[path])
        found, _ = shard_archive.lookup_shard(archive, spec.dataset, spec.algorithm, spec.params, spec.horizon,
                                              spec.run_start, spec.run_stop, spec.seed, want)
        if found.status == VALID:
            entry = shard_archive.entry_path(spec.dataset, spec.algorithm, spec.params, spec.horizon,
                                             spec.run_start, spec.run_stop, spec.seed)
            measured[entry] = _measurement_for(archive, entry, path, lambda: _not_computed_here(path, spec.algorithm))
            continue
        try:
            result = load_shards([path])
            computed_here(path, result.algorithm)
        except ValueError as exc:
            refused.append(str(exc))
            continue
        shard_archive.archive_result(archive, result, want, run_measurement(path))
        added += 1
    sources = SampleSources(archive_root)
    added_samples = 0
    for s in samples:
        if not (os.path.isfile(s.path) and os.path.isfile(s.path + ".json")):
            continue
        if sources.status(s) == VALID:
            measured[entry_path(s)] = _measurement_for(archive, entry_path(s), s.path, lambda: refusal(s))
            continue
        try:
            archive_sample_shards(archive_root, [s])
        except ValueError as exc:  # samples.refusal: other code, another lock file, altered bytes
            refused.append(str(exc))
            continue
        added_samples += 1
    archive.record_measured({e: m for e, m in measured.items() if m is not None})
    return added, added_samples, refused


def unplanned(configs: Sequence[Mapping], archive_root: str | os.PathLike) -> list[str]:
    """Archive entries no plan of any of ``configs`` (one per archived fidelity; declared
    readings and reading variants) reads: e.g. after an algorithm's parameters changed, the
    entries under its old parameter hash."""
    wanted = set()
    for config in configs:
        specs, _, samples = planned(config)
        wanted |= {shard_archive.entry_path(s.dataset, s.algorithm, s.params, s.horizon, s.run_start, s.run_stop,
                                            s.seed) for s in specs.values()}
        wanted |= {entry_path(s) for s in samples}
    return sorted(set(Archive(archive_root).manifest()) - wanted)


def paper_report(config: Mapping, archive_root: str | os.PathLike) -> list[dict]:
    """Per configured experiment: planned shards and sample shards by archive status, the bytes
    of the valid entries it reads, bytes per archived run, and the size the archive will have
    for it when every planned shard is archived (bytes per run x planned runs)."""
    rows = []
    manifest = Archive(archive_root).manifest()
    for name in configured(config):
        p = plan(config, name)
        samples = SampleSources(archive_root)
        readers = {k: ShardSources(archive_root, k) for k in {p.kinds_of(spec) for spec in p.shards}}
        status: dict[str, int] = {}
        sim_bytes = sim_runs = sample_bytes = 0
        for spec in p.shards:
            shards = readers[p.kinds_of(spec)]
            st = shards.status(spec)
            status[st] = status.get(st, 0) + 1
            if st == VALID:
                sim_bytes += manifest[shards.entry(spec)[0]]["bytes"]
                sim_runs += spec.run_stop - spec.run_start
        for shard in p.samples:
            st = samples.status(shard)
            status[f"samples {st}"] = status.get(f"samples {st}", 0) + 1
            if st == VALID:
                sample_bytes += manifest[entry_path(shard)]["bytes"]
        runs = sum(s.run_stop - s.run_start for s in p.shards)
        per_run = sim_bytes / sim_runs if sim_runs else float("nan")
        rows.append({"experiment": name, "status": status, "simulation_MB": sim_bytes / 1e6,
                     "sample_MB": sample_bytes / 1e6, "bytes_per_run": per_run, "planned_runs": runs,
                     "projected_simulation_MB": per_run * runs / 1e6 if sim_runs else float("nan")})
    return rows


def report_line(row: Mapping, fidelity: str) -> str:
    """One line of ``--report`` for a row of :func:`paper_report`; an experiment without
    simulation shards (sample shards only) or with none archived yet says so instead of
    printing a size per run it cannot know."""
    if not row["planned_runs"]:
        simulation = "no simulation shards planned"
    elif math.isnan(row["bytes_per_run"]):
        simulation = f"no simulation shard archived yet ({row['planned_runs']} runs planned)"
    else:
        simulation = (f"{row['simulation_MB']:.3f} MB simulation ({row['bytes_per_run']:.0f} bytes per run, "
                      f"{row['planned_runs']} runs planned: {row['projected_simulation_MB']:.2f} MB when complete)")
    return (f"{row['experiment']} ({fidelity}): {simulation}, {row['sample_MB']:.3f} MB samples; "
            f"shards {dict(sorted(row['status'].items()))}")


def archive_command(argv: Sequence[str] | None = None) -> int:
    """``duelbench archive``: :func:`duelbench.engine.archive_cli.main`, whose ``status`` checks
    the sample entries against this code as well as the simulation entries."""
    return archive_cli.main(argv, checkers={**archive_cli.CHECKERS, SAMPLES: lookup_entry})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m duelbench.experiments.archiving",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--archive", default=str(CHECKOUT / "archive"))
    parser.add_argument("--config", default=str(DEFAULT_CONFIG))
    parser.add_argument("--report", action="store_true", help="per experiment: archive status and size, add nothing")
    parser.add_argument("--prune", action="store_true",
                        help="remove the entries no plan of the configuration reads (listed first), add nothing")
    parser.add_argument("--fidelity", action="append", metavar="NAME",
                        help=f"a fidelity to plan (repeatable; default: {', '.join(ARCHIVED_FIDELITIES)})")
    args = parser.parse_args(argv)
    fidelities = args.fidelity or list(ARCHIVED_FIDELITIES)
    configs = {f: checkout_config(args.config, fidelity=f) for f in fidelities}
    if args.prune:
        gone = unplanned(list(configs.values()), args.archive)
        for path in gone:
            print(f"unplanned: {path}")
        Archive(args.archive).remove(gone)
        print(f"removed {len(gone)} unplanned entries from {args.archive}")
        return 0
    if args.report:
        for fidelity, config in configs.items():
            for r in paper_report(config, args.archive):
                print(report_line(r, fidelity))
        return 0
    status = 0
    for fidelity, config in configs.items():
        n_shards, n_samples, refused = archive_finished(config, args.archive)
        print(f"archived {n_shards} simulation shards and {n_samples} sample shards ({fidelity}) into {args.archive}")
        for reason in refused:
            print(f"not archived: {reason}", file=sys.stderr)
        status = status or (1 if refused else 0)
    return status


if __name__ == "__main__":
    sys.exit(main())
