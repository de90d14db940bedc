"""Compile every registered algorithm's kernels into the numba cache before simulation jobs.

The workflow's warm-up rule calls :func:`compile_all` once per algorithm, with
``NUMBA_CACHE_DIR`` inside the checkout, so that parallel simulation jobs load compiled code
instead of each compiling (and racing to write) the same cache entries.

``python -m duelbench.engine.warmup [--jobs N] [NAME ...]`` does the same outside the workflow
(CI fills the cache this way before the tests): one algorithm per task, ``N`` worker processes
(default: the CPUs this process may use), so the wall time is about the sum of the compile
times over ``N`` rather than their sum. Workers compile disjoint algorithms, as the workflow's
parallel warm-up jobs do; numba writes each cache file atomically.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import as_completed, ProcessPoolExecutor

import numpy as np

from duelbench.algorithms.registry import get_algorithm, list_algorithms

from .simulate import simulate


def compile_all(names=None, verbose: bool = True) -> dict[str, float]:
    """Run each compiled algorithm for a few steps on a tiny matrix; returns seconds per name."""
    P = np.array([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]])
    times = {}
    for name in names or list_algorithms():
        if not get_algorithm(name).compiled:
            continue
        t0 = time.perf_counter()
        simulate(name, P, 50, 1, checkpoints=[10, 50])
        simulate(name, P, 50, 1, checkpoints=[10, 50], record_pairs=True)
        times[name] = time.perf_counter() - t0
        if verbose:
            print(f"compiled {name} in {times[name]:.1f} s", flush=True)
    return times


def compile_parallel(names: Sequence[str], jobs: int) -> dict[str, float]:
    """:func:`compile_all` with one algorithm per task on ``jobs`` worker processes (spawned, so
    each starts from a clean interpreter); prints each algorithm as it finishes."""
    if jobs <= 1 or len(names) <= 1:
        return compile_all(names)
    times = {}
    with ProcessPoolExecutor(max_workers=min(jobs, len(names)),
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(compile_all, [name], False): name for name in names}
        for future in as_completed(futures):
            for name, seconds in future.result().items():
                times[name] = seconds
                print(f"compiled {name} in {seconds:.1f} s", flush=True)
    return times


def _available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m duelbench.engine.warmup",
                                     description="Compile the algorithms' numba kernels into NUMBA_CACHE_DIR.")
    parser.add_argument("names", nargs="*", metavar="NAME", help="algorithms to compile (default: every registered one)")
    parser.add_argument("--jobs", type=int, default=_available_cpus(), metavar="N",
                        help="worker processes (default: the CPUs available, here %(default)s)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    known = list_algorithms()
    unknown = [n for n in args.names if n not in known]
    if unknown:
        parser.error(f"unknown algorithm(s) {', '.join(map(repr, unknown))}; registered: {', '.join(known)}")
    names = [n for n in (args.names or known) if get_algorithm(n).compiled]
    started = time.perf_counter()
    times = compile_parallel(names, args.jobs)
    print(f"compiled {len(times)} algorithms in {time.perf_counter() - started:.1f} s wall "
          f"({sum(times.values()):.1f} s summed, {min(args.jobs, max(len(names), 1))} process(es))", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
