"""``duelbench cost EXPERIMENT``: the measured compute of an experiment, per panel.

::

    duelbench cost wu2016                           # the declared reading, results of this checkout
    duelbench cost wu2016 --readings                # plus what each reading variant adds
    duelbench cost wu2016 --results ../fill --csv cost.csv

Every shard the workflow computes has a provenance sidecar with its CPU time (``run.cpu_time_s``).
This command plans the experiment at the configured fidelity, reads the sidecar of each planned
simulation shard and sample shard under each ``--results`` checkout (default: this one), and
reports per group (dataset, algorithm, horizon for simulations; family for samples):

* ``shards``: planned; ``timed``: those whose sidecar shows *this* code and ``requirements.lock``
  (a shard computed by other code, or read from the results archive without a sidecar, is
  not timed: its time says nothing about this code);
* ``cpu_s``: the CPU seconds of the timed shards; ``cpu_h``: **an extrapolation**, the mean
  CPU time of a timed shard of the group times the planned shards (NaN without a timed shard).

Panel lines sum ``cpu_h`` over a dataset's timed groups and count the untimed ones (a sample
family is its own panel). With
``--readings``, each reading variant lists only the shards its declared reading does not
already plan (what it adds). Timings depend on the host: measurements, never results.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Mapping, Sequence

from duelbench.provenance.sidecar import read_sidecar

from .config_check import CHECKOUT, DEFAULT_CONFIG, checkout_config
from .contract import configured, plans

COLUMNS = ["reading", "kind", "panel", "algorithm", "horizon", "shards", "timed", "cpu_s", "cpu_h"]


def _cpu_seconds(path: str, code: str, lock: str, code_field: str) -> float | None:
    """CPU seconds of a shard's sidecar if it shows ``code`` and ``lock``, else None."""
    try:
        doc = read_sidecar(path)
    except (FileNotFoundError, ValueError):
        return None
    extra = doc.get("content", {}).get("extra", {})
    cpu = doc.get("run", {}).get("cpu_time_s")
    if (extra.get(code_field), extra.get("lock_hash")) != (code, lock) or cpu is None:
        return None
    return float(cpu)


def _timed(shards, roots: Sequence[str], code_of, code_field: str) -> tuple[int, float]:
    """(timed shards, their CPU seconds): the first root holding a sidecar of this code counts."""
    from duelbench.provenance.codehash import lock_hash

    lock, n, total = lock_hash(), 0, 0.0
    for shard in shards:
        for root in roots:
            cpu = _cpu_seconds(os.path.join(root, shard.path), code_of(shard), lock, code_field)
            if cpu is not None:
                n, total = n + 1, total + cpu
                break
    return n, total


def _row(reading: str, kind: str, panel: str, algorithm: str, horizon, shards, roots, code_of, code_field) -> dict:
    timed, cpu = _timed(shards, roots, code_of, code_field)
    est = cpu / timed * len(shards) / 3600 if timed else math.nan
    return {"reading": reading, "kind": kind, "panel": panel, "algorithm": algorithm, "horizon": horizon,
            "shards": len(shards), "timed": timed, "cpu_s": cpu, "cpu_h": est}


def cost_rows(config: Mapping, experiment: str, roots: Sequence[str] = (".",), readings: bool = False) -> list[dict]:
    """One row per (reading, group) of ``experiment``'s planned shards: see the module doc."""
    from duelbench.algorithms.registry import source_hash

    from .samples import sample_key

    if experiment not in configured(config):
        raise LookupError(f"no experiment {experiment!r} in the configuration "
                          f"(configured: {', '.join(configured(config))})")
    declared, variants = plans(config, experiment)
    todo = [("declared", declared)] + (sorted(variants.items()) if readings else [])
    rows, seen = [], set()
    for reading, p in todo:
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
            rows.append(_row(reading, "simulation", dataset, alg, horizon, specs, roots,
                             lambda s: source_hash(s.algorithm), "source_hash"))
        for family, shards in sorted(fams.items()):
            rows.append(_row(reading, "samples", family, "", "", shards, roots,
                             lambda s: sample_key(s)["code"], "code_hash"))
    return rows


def panel_totals(rows: Sequence[Mapping]) -> list[dict]:
    """(reading, panel) sums: shards, timed shards, ``cpu_h`` over the groups with a timed shard,
    and ``untimed_groups`` (groups without one, left out of ``cpu_h``)."""
    out: dict[tuple, dict] = {}
    for r in rows:
        t = out.setdefault((r["reading"], r["panel"]), {"reading": r["reading"], "panel": r["panel"], "shards": 0,
                                                        "timed": 0, "cpu_h": 0.0, "untimed_groups": 0})
        t["shards"] += r["shards"]
        t["timed"] += r["timed"]
        if r["timed"]:
            t["cpu_h"] += r["cpu_h"]
        else:
            t["untimed_groups"] += 1
    return list(out.values())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="duelbench cost", description=__doc__.splitlines()[0])
    parser.add_argument("experiment", help="an experiment of the configuration, e.g. wu2016")
    parser.add_argument("--config", default=str(DEFAULT_CONFIG))
    parser.add_argument("--fidelity", help="plan this fidelity instead of the configuration's")
    parser.add_argument("--results", action="append", metavar="DIR",
                        help=f"a checkout whose results/ to read (repeatable; default {CHECKOUT})")
    parser.add_argument("--readings", action="store_true", help="also what each reading variant adds")
    parser.add_argument("--csv", help="write the per-group table here as well")
    args = parser.parse_args(argv)
    try:
        config = checkout_config(args.config, fidelity=args.fidelity)
        rows = cost_rows(config, args.experiment, args.results or [str(CHECKOUT)], args.readings)
    except LookupError as exc:
        print(f"duelbench cost: error: {exc.args[0]}", file=sys.stderr)
        return 2
    for r in rows:
        what = f"{r['algorithm']} T={r['horizon']}" if r["kind"] == "simulation" else "samples"
        print(f"{r['reading']:<30} {r['panel']:<28} {what:<30} {r['timed']:>5}/{r['shards']:<5} timed "
              f"{r['cpu_h']:9.3f} CPU-h")
    print()
    total, untimed = 0.0, 0
    for t in panel_totals(rows):
        total, untimed = total + t["cpu_h"], untimed + t["untimed_groups"]
        note = f" (+ {t['untimed_groups']} untimed groups)" if t["untimed_groups"] else ""
        print(f"{t['reading']:<30} {t['panel']:<28} {'panel':<30} {t['timed']:>5}/{t['shards']:<5} timed "
              f"{t['cpu_h']:9.3f} CPU-h{note}")
    print(f"total {total:.3f} CPU-h at {config['fidelity']} fidelity, extrapolated from the timed shards"
          + (f"; {untimed} groups without a timed shard are not counted" if untimed else ""))
    if args.csv:
        import pandas as pd

        from duelbench.provenance.sidecar import atomic_write_text

        atomic_write_text(args.csv, pd.DataFrame(rows, columns=COLUMNS).to_csv(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
