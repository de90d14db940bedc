"""``duelbench bench``: single-core steps per second of every compiled algorithm.

Prints JSON: for each algorithm and instance (by default K = 5, 16, 64 and 500: the printed
5-arm MSLR Condorcet matrix, Sushi, Komiyama et al.'s 64-arm MSLR panel and Zoghi et al.'s
500-arm Copeland instance), steps per second of single runs after compilation, the best of
``--repeat`` timings.  Each case is capped at about ``--max-seconds``: a short calibration run
estimates the speed, and the timed runs are shortened to fit the cap (the horizon used is
reported).  An instance whose data is not installed (the MSLR panel before
``duelbench fetch-data``) is listed as skipped with the reason.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

from duelbench.algorithms.registry import get_algorithm, list_algorithms
from duelbench.data.errors import DataError
from duelbench.data.registry import load_matrix
from duelbench.engine.simulate import simulate

#: One instance per K = 5, 16, 64, 500.
DEFAULT_INSTANCES = ("mslr5_condorcet_printed", "sushi", "kom_mslr64_noncondorcet", "zoghi_copeland500")
CALIBRATION_STEPS = 2000


def measure(algorithm: str, dataset: str, horizon: int, repeat: int = 3, max_seconds: float = 10.0) -> dict:
    """Best-of-``repeat`` steps/s of single runs of at most ``horizon`` steps (compilation
    excluded), shortened so that the case takes about ``max_seconds``."""
    simulate(algorithm, dataset, min(horizon, 1000), 1, seed=12345)  # compile and load
    t0 = time.perf_counter()
    calib = min(horizon, CALIBRATION_STEPS)
    simulate(algorithm, dataset, calib, 1, seed=12346, checkpoints=[calib])
    rate = calib / max(time.perf_counter() - t0, 1e-9)
    steps = int(max(calib, min(horizon, rate * max_seconds / max(repeat, 1))))
    best = 0.0
    for k in range(repeat):
        t0 = time.perf_counter()
        simulate(algorithm, dataset, steps, 1, seed=k, checkpoints=[steps])
        best = max(best, steps / (time.perf_counter() - t0))
    return {"steps_per_second": round(best), "horizon": steps, "capped": steps < horizon}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="duelbench bench", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--algorithms", nargs="*", default=None, metavar="NAME",
                    help="registry names (default: every compiled algorithm)")
    ap.add_argument("--datasets", nargs="*", default=list(DEFAULT_INSTANCES), metavar="DATASET",
                    help="instances to time (registry names)")
    ap.add_argument("--horizon", type=int, default=1_000_000, help="steps of each timed run, at most")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per case (the best is reported)")
    ap.add_argument("--max-seconds", type=float, default=10.0,
                    help="about how long one case may take; runs are shortened to fit")
    args = ap.parse_args(argv)
    names = args.algorithms or [a for a in list_algorithms() if get_algorithm(a).compiled]
    out = {"machine": {"python": platform.python_version(), "processor": platform.processor() or platform.machine(),
                       "cpu_count": os.cpu_count(), "threads_used": 1},
           "horizon": args.horizon, "max_seconds": args.max_seconds, "K": {}, "skipped": {}, "cases": {}}
    datasets = []
    for d in args.datasets:
        try:
            out["K"][d] = int(load_matrix(d).K)
            datasets.append(d)
        except DataError as exc:
            out["skipped"][d] = str(exc).splitlines()[0]
    for name in names:
        out["cases"][name] = {d: measure(name, d, args.horizon, args.repeat, args.max_seconds) for d in datasets}
    out["note"] = ("steps per second = horizon / wall time of one run (compilation excluded, best of "
                   f"{args.repeat}); copeland_savage and scb add committed exploitation in closed form or in "
                   "blocks, so their figures count simulated steps, not per-step work")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
