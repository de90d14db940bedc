"""Compile every registered algorithm's kernels into the numba cache before simulation jobs.

The workflow's warm-up rule calls :func:`compile_all` once, with ``NUMBA_CACHE_DIR`` inside the
checkout, so that parallel simulation jobs load compiled code instead of each compiling (and
racing to write) the same cache entries.
"""

from __future__ import annotations

import time

import numpy as np

from duelbench.algorithms.registry import get_algorithm, list_algorithms


def compile_all(names=None, verbose: bool = True) -> dict[str, float]:
    """Run each compiled algorithm for a few steps on a tiny matrix; returns seconds per name."""
    from .simulate import simulate

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


def main(argv=None) -> int:
    compile_all()
    return 0
