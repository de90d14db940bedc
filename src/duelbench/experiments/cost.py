"""``duelbench cost EXPERIMENT``: the measured compute of an experiment, per panel.

::

    duelbench cost wu2016                           # the declared reading, results of this checkout
    duelbench cost wu2016 --readings                # plus what each reading variant adds
    duelbench cost wu2016 --results ../fill --csv cost.csv
    duelbench cost wu2016 --archive off             # every shard counts as still to compute
    duelbench cost wu2016 --readings --time-missing # first time 3 shards of each group with fewer
    duelbench cost benchmark --by algorithm         # sums per algorithm instead of per panel

Every shard the workflow computes has a provenance sidecar with its CPU time (``run.cpu_time_s``).
This command plans the experiment at the configured fidelity, reads the sidecar of each planned
simulation shard and sample shard under each ``--results`` checkout (default: this one), and
reports per group (dataset, algorithm, horizon for simulations; family for samples):

* ``shards``: planned; ``timed``: those whose sidecar shows *this* code and ``requirements.lock``,
  or, without such a sidecar, whose entry in the results archive is valid for this code and
  records the CPU time its job measured (the manifest line's ``measured``; a shard computed by
  other code is not timed: its time says nothing about this code);
* ``cpu_s``: the CPU seconds of the timed shards; ``cpu_h``: **an extrapolation**, the mean
  CPU time of a timed shard of the group times the planned shards (NaN without a timed shard);
* ``todo``: the planned shards still to compute, neither valid in the results archive
  (``--archive``, default the checkout's ``archive/``) nor timed under a ``--results`` checkout;
  ``todo_cpu_h``: the same extrapolation for them (0 when nothing remains): how long a
  resumed build has to go.

Panel lines sum ``cpu_h`` and ``todo_cpu_h`` over a dataset's timed groups and count the
untimed ones (a sample family is its own panel); ``--by algorithm`` sums per algorithm instead.
``--time-missing`` first computes a few shards of each group with fewer timed ones
(:func:`time_untimed`), so that every group is costed. With ``--readings``, each reading
variant lists only the shards its declared reading does not already plan (what it adds).
Timings depend on the host: measurements, never results.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import pandas as pd

from duelbench.algorithms.registry import source_hash
from duelbench.archive.sources import OFF
from duelbench.archive.store import VALID
from duelbench.config.files import CHECKOUT, checkout_config, DEFAULT_CONFIG
from duelbench.engine.shard_sources import ShardSources
from duelbench.provenance.codehash import lock_hash
from duelbench.provenance.jobenv import job_environment
from duelbench.provenance.sidecar import atomic_write_text, code_mismatches, read_sidecar

from .contract import configured
from .planning import plans
from .samples import function_code_hash, SampleSources

COLUMNS = ["reading", "kind", "panel", "algorithm", "horizon", "shards", "timed", "cpu_s", "cpu_h", "todo",
           "todo_cpu_h"]


def _cpu_seconds(path: str, code: str, lock: str, code_field: str) -> float | None:
    """CPU seconds of a shard's sidecar if it shows ``code`` and ``lock``, else None."""
    try:
        doc = read_sidecar(path)
    except (FileNotFoundError, ValueError):
        return None
    cpu = doc.get("run", {}).get("cpu_time_s")
    if code_mismatches(doc.get("content", {}), code_field, code, lock) or cpu is None:
        return None
    return float(cpu)


def _timed(shards, roots: Sequence[str], code: str, code_field: str, sources) -> list[float | None]:
    """CPU seconds of each shard (None if untimed): the first root with a sidecar of ``code``
    counts, else the measurement of its valid archive entry."""
    lock, out = lock_hash(), []
    for shard in shards:
        cpu = None
        for root in roots:
            cpu = _cpu_seconds(os.path.join(root, shard.path), code, lock, code_field)
            if cpu is not None:
                break
        if cpu is None:
            cpu = sources.measured_cpu_s(shard)  # None with the archive off
        out.append(cpu)
    return out


class Group(NamedTuple):
    """The planned shards of one (reading, dataset, algorithm, horizon) or (reading, sample
    family), with this checkout's code hash of them and where they are read from."""

    reading: str
    kind: str
    panel: str
    algorithm: str
    horizon: int | str
    shards: list
    code: str
    code_field: str
    sources: object


def _row(g: Group, roots: Sequence[str]) -> dict:
    """One group's row (see the module doc)."""
    times = _timed(g.shards, roots, g.code, g.code_field, g.sources)
    found = [c for c in times if c is not None]
    todo = sum(1 for sh, c in zip(g.shards, times) if c is None and g.sources.status(sh) != VALID)
    per = sum(found) / len(found) / 3600 if found else math.nan
    return {"reading": g.reading, "kind": g.kind, "panel": g.panel, "algorithm": g.algorithm, "horizon": g.horizon,
            "shards": len(g.shards), "timed": len(found), "cpu_s": sum(found), "cpu_h": per * len(g.shards),
            "todo": todo, "todo_cpu_h": per * todo if todo else 0.0}


def _groups(config: Mapping, experiment: str, readings: bool, archive) -> list[Group]:
    """The groups of ``experiment``'s planned shards (a reading variant: only the shards it adds)."""
    if experiment not in configured(config):
        raise LookupError(f"no experiment {experiment!r} in the configuration "
                          f"(configured: {', '.join(configured(config))})")
    declared, variants = plans(config, experiment)
    chosen = [("declared", declared)] + (sorted(variants.items()) if readings else [])
    groups, seen = [], set()
    sample_sources = SampleSources(archive)
    for reading, p in chosen:
        sims: dict[tuple, list] = {}
        for spec in p.shards:
            if spec.path not in seen:
                sims.setdefault((spec.dataset, spec.algorithm, spec.horizon), []).append(spec)
        fams: dict[str, list] = {}
        for shard in p.samples:
            if shard.path not in seen:
                fams.setdefault(shard.family, []).append(shard)
        seen.update(s.path for s in p.shards)
        seen.update(s.path for s in p.samples)
        for (dataset, alg, horizon), specs in sorted(sims.items()):
            groups.append(Group(reading, "simulation", dataset, alg, horizon, specs, source_hash(alg), "source_hash",
                                ShardSources(archive, p.kinds_of(specs[0]))))
        for family, shards in sorted(fams.items()):
            code = function_code_hash(shards[0].experiment, shards[0].function)  # one function per family
            groups.append(Group(reading, "samples", family, "", "", shards, code, "code_hash", sample_sources))
    return groups


def cost_rows(config: Mapping, experiment: str, roots: Sequence[str] = (".",), readings: bool = False,
              archive: str | os.PathLike | None = None) -> list[dict]:
    """One row per (reading, group) of ``experiment``'s planned shards (see the module doc);
    ``archive``: the results archive folder (None: no archive, every untimed shard is to do)."""
    return [_row(g, roots) for g in _groups(config, experiment, readings, archive)]


def time_untimed(config: Mapping, experiment: str, roots: Sequence[str], readings: bool = False,
                 archive: str | os.PathLike | None = None, per_group: int = 3) -> list[str]:
    """Compute, under ``roots[0]``, shards of each group that has fewer than ``per_group`` timed
    shards (under any of ``roots`` or in the archive; all shards of a smaller group), as their
    workflow jobs would (results file and sidecar), so that every group is costed; returns the
    paths written.  Each shard is its own process in the workflow's job environment
    (:func:`~duelbench.provenance.jobenv.job_environment`: one thread, so that BLAS threads
    spinning beside other jobs do not inflate its CPU time).

    The shards are spread evenly over the group's plan (first, middle, last for 3), since the
    shards of a group need not cost the same (e.g. a sample family whose shards are its K values).
    Archiving them afterwards (``workflow/scripts/archive_finished_shards.sh``) records their
    measurement on the lines of the entries they reproduce.
    """
    written = []
    for g in _groups(config, experiment, readings, archive):
        times = _timed(g.shards, roots, g.code, g.code_field, g.sources)
        missing = min(per_group, len(g.shards)) - sum(c is not None for c in times)
        spread = sorted({round(i * (len(g.shards) - 1) / max(per_group - 1, 1)) for i in range(per_group)})
        for i in [i for i in spread if times[i] is None][:max(missing, 0)]:
            out = os.path.join(roots[0], g.shards[i].path)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            print(f"timing {out}", file=sys.stderr, flush=True)
            command = "simulate" if g.kind == "simulation" else "sample"
            subprocess.run([sys.executable, "-m", "duelbench.job_main", command, out, g.shards[i].job_params()],
                           env=job_environment(), check=True, stdout=subprocess.DEVNULL)
            written.append(out)
    return written


def totals(rows: Sequence[Mapping], by: str = "panel") -> list[dict]:
    """(reading, ``by``) sums of ``shards``, ``timed``, ``todo``, and of ``cpu_h`` and ``todo_cpu_h``
    over the groups that have a timed shard; ``untimed_groups`` counts the others (left out).
    ``by``: a column of the rows, ``panel`` or ``algorithm`` (a sample family has none: ``samples``)."""
    out: dict[tuple, dict] = {}
    for r in rows:
        name = r[by] or "samples"
        t = out.setdefault((r["reading"], name), {"reading": r["reading"], by: name, "shards": 0,
                                                  "timed": 0, "cpu_h": 0.0, "todo": 0, "todo_cpu_h": 0.0,
                                                  "untimed_groups": 0})
        for k in ("shards", "timed", "todo"):
            t[k] += r[k]
        if r["timed"]:
            t["cpu_h"] += r["cpu_h"]
            t["todo_cpu_h"] += r["todo_cpu_h"]
        else:
            t["untimed_groups"] += 1
    return list(out.values())


def _line(reading: str, panel: str, what: str, r: Mapping) -> str:
    return (f"{reading:<30} {panel:<28} {what:<30} {r['timed']:>5}/{r['shards']:<5} timed {r['cpu_h']:9.3f} CPU-h"
            f" | to do {r['todo']:>5} {r['todo_cpu_h']:9.3f} CPU-h")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="duelbench cost", description=__doc__.splitlines()[0])
    parser.add_argument("experiment", help="an experiment of the configuration, e.g. wu2016")
    parser.add_argument("--config", default=str(DEFAULT_CONFIG))
    parser.add_argument("--fidelity", help="plan this fidelity instead of the configuration's")
    parser.add_argument("--results", action="append", metavar="DIR",
                        help=f"a checkout whose results/ to read (repeatable; default {CHECKOUT})")
    parser.add_argument("--archive", default=str(CHECKOUT / "archive"),
                        help="the results archive whose valid entries are done ('off': none)")
    parser.add_argument("--readings", action="store_true", help="also what each reading variant adds")
    parser.add_argument("--by", choices=("panel", "algorithm"), default="panel",
                        help="the sums printed after the groups: per panel (default) or per algorithm")
    parser.add_argument("--csv", help="write the per-group table here as well")
    parser.add_argument("--time-missing", type=int, nargs="?", const=3, default=0, metavar="N",
                        help="first compute, under the first --results checkout, shards of each group with fewer "
                             "than N (default 3) timed shards, spread over the group, so that every group is costed")
    args = parser.parse_args(argv)
    archive = None if args.archive.strip().lower() in OFF else args.archive
    try:
        config = checkout_config(args.config, fidelity=args.fidelity)
        roots = args.results or [str(CHECKOUT)]
        if args.time_missing:
            time_untimed(config, args.experiment, roots, args.readings, archive, args.time_missing)
        rows = cost_rows(config, args.experiment, roots, args.readings, archive)
    except LookupError as exc:
        print(f"duelbench cost: error: {exc.args[0]}", file=sys.stderr)
        return 2
    for r in rows:
        what = f"{r['algorithm']} T={r['horizon']}" if r["kind"] == "simulation" else "samples"
        print(_line(r["reading"], r["panel"], what, r))
    print()
    sums = totals(rows, args.by)
    for t in sums:
        note = f" (+ {t['untimed_groups']} untimed groups)" if t["untimed_groups"] else ""
        print(_line(t["reading"], t[args.by], args.by, t) + note)
    untimed = sum(t["untimed_groups"] for t in sums)
    print(f"total {sum(t['cpu_h'] for t in sums):.3f} CPU-h, to do {sum(t['todo'] for t in sums)} shards, "
          f"{sum(t['todo_cpu_h'] for t in sums):.3f} CPU-h, at {config['fidelity']} fidelity, extrapolated from "
          "the timed shards" + (f"; {untimed} groups without a timed shard are not counted" if untimed else ""))
    if args.csv:
        atomic_write_text(args.csv, pd.DataFrame(rows, columns=COLUMNS).to_csv(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
