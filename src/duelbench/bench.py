"""``duelbench bench``: single-core steps per second of every compiled algorithm.

Prints JSON: for each algorithm and instance (Sushi, K = 16; the 5-arm MSLR Condorcet matrix,
K = 5 — the printed version, so no download is needed), steps per second measured on runs of
``--horizon`` steps after compilation, the best of ``--repeat`` timings.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

from duelbench.algorithms.registry import get_algorithm, list_algorithms
from duelbench.engine.simulate import simulate

DEFAULT_INSTANCES = ("sushi", "mslr5_condorcet_printed")


def measure(algorithm: str, dataset: str, horizon: int, repeat: int = 3) -> float:
    """Best-of-``repeat`` steps/s of one run of ``horizon`` steps (compilation excluded)."""
    simulate(algorithm, dataset, min(horizon, 1000), 1, seed=12345)
    best = 0.0
    for k in range(repeat):
        t0 = time.perf_counter()
        simulate(algorithm, dataset, horizon, 1, seed=k, checkpoints=[horizon])
        best = max(best, horizon / (time.perf_counter() - t0))
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="duelbench bench", description=__doc__.splitlines()[0])
    ap.add_argument("--algorithms", nargs="*", default=None, help="registry names (default: all compiled)")
    ap.add_argument("--datasets", nargs="*", default=list(DEFAULT_INSTANCES))
    ap.add_argument("--horizon", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    names = args.algorithms or [a for a in list_algorithms() if get_algorithm(a).compiled]
    out = {"machine": {"python": platform.python_version(), "processor": platform.processor() or platform.machine(),
                       "cpu_count": os.cpu_count(), "threads_used": 1},
           "horizon": args.horizon, "steps_per_second": {}}
    for name in names:
        out["steps_per_second"][name] = {d: round(measure(name, d, args.horizon, args.repeat)) for d in args.datasets}
    out["note"] = ("steps per second = horizon / wall time of one run (compilation excluded, best of "
                   f"{args.repeat}); copeland_savage and scb add committed exploitation in closed form or in "
                   "blocks, so their figures count simulated steps, not per-step work")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
