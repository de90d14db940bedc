"""Families of per-run instances: run r of every algorithm sees instance r of a seeded family.

Agarwal et al. (2022) generate their synthetic 100-arm datasets SYN-BTL and SYN-CD at random
(paper 003 @31554-@32305) and "repeat each experiment 10 times" (@32428).  The suite's reading
is a *family* (a generated recipe with ``per_run_seed``, see :mod:`duelbench.data.generated`):
run ``r`` of every algorithm sees the instance ``"<family>.run<r>"``, drawn from
``SeedSequence([per_run_seed, r])``: a fresh instance in every run, the same for every
algorithm, so the comparison between algorithms stays paired.

* :func:`simulate_family` runs ``[run_start, run_start + runs)``: run ``r`` is exactly
  ``simulate(algorithm, load_instance(family, r), horizon, 1, seed, run_start=r, ...)``, so the
  algorithm's random stream and the arm permutation of run ``r`` are those of
  :func:`duelbench.engine.simulate.simulate` keyed by the instance name (identity of the matrix)
  and ``r``.  A result over runs ``[a, b)`` is therefore independent of how the runs are split
  into shards, and the same call with one instance name reproduces any of its runs.
* :func:`run_matrix` is the matrix of run ``r`` of any dataset (the family's instance ``r``, or
  the dataset itself).
* :func:`family_sha256` is the content hash of the instances of runs ``[a, b)``: the archive key
  of a family shard (:mod:`duelbench.engine.shard_archive`) holds it where a plain dataset's key
  holds its matrix's sha256.

Decisions
---------
* The result's ``dataset`` is the family name (the per-run instance names are derived from it
  and the run indices); ``meta`` is left empty, as :func:`simulate` leaves it.
* The instance of run ``r`` is keyed by the run index only, not by the global seed: changing
  ``seed`` changes the algorithms' random streams and the arm permutations, not the instances
  (the instances are data, declared once in the recipe with their own seed).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from typing import Callable

import numpy as np

from .result import SimulationResult
from .simulate import simulate


def _data_registry():
    from duelbench.data import registry

    return registry


def check_family(family: str) -> None:
    """Raise ValueError unless ``family`` is a registered family of per-run instances."""
    if not _data_registry().is_family(family):
        raise ValueError(f"{family!r} is not a family of per-run instances (a data/generated recipe with "
                         f"per_run_seed); simulate a single matrix with duelbench.simulate")


def simulate_family(
    algorithm: str,
    family: str,
    horizon: int,
    runs: int,
    seed: int = 0,
    *,
    run_start: int = 0,
    checkpoints=None,
    permute: bool = True,
    record_pairs: bool = False,
    progress: Callable[[int, int], None] | None = None,
    **params,
) -> SimulationResult:
    """Simulate runs ``run_start … run_start + runs − 1`` of ``algorithm`` on a family, run ``r``
    on the family's instance ``r``.

    Parameters are those of :func:`duelbench.engine.simulate.simulate`, with ``family`` (a
    registered family name) in place of the matrix.  Run ``r`` is
    ``simulate(algorithm, load_instance(family, r), horizon, 1, seed, run_start=r, ...)``.

    Returns
    -------
    SimulationResult
        The runs in order, ``dataset`` = ``family``; with ``record_pairs``, ``pairs`` holds each
        run's pairs in the labels of its own instance.
    """
    check_family(family)
    runs, run_start = int(runs), int(run_start)
    if runs < 1:
        raise ValueError(f"runs must be ≥ 1, got {runs}")
    if run_start < 0:
        raise ValueError(f"run_start must be ≥ 0, got {run_start}")
    registry = _data_registry()
    parts = []
    for row, r in enumerate(range(run_start, run_start + runs)):
        part = simulate(algorithm, registry.load_instance(family, r), horizon, 1, seed, run_start=r,
                        checkpoints=checkpoints, permute=permute, record_pairs=record_pairs, **params)
        parts.append(dataclasses.replace(part, dataset=family))
        if progress is not None:
            progress(row + 1, runs)
    out = SimulationResult.concatenate(parts)
    if record_pairs:
        out.pairs = np.concatenate([p.pairs for p in parts])
    return out


def run_matrix(dataset: str, run: int):
    """The matrix run ``run`` sees before its arms are relabelled: instance ``run`` of a family,
    the dataset's own matrix otherwise."""
    registry = _data_registry()
    return registry.load_instance(dataset, run) if registry.is_family(dataset) else registry.load_matrix(dataset)


@functools.lru_cache(maxsize=None)
def family_sha256(family: str, run_start: int, run_stop: int) -> str:
    """sha256 of the instances of runs ``[run_start, run_stop)`` of ``family``.

    The sha256 (hex) of the ASCII concatenation of the instances' own
    :attr:`~duelbench.problems.matrix.PreferenceMatrix.sha256` hex strings, in run order: it
    changes when any of these instances changes (e.g. the family's ``per_run_seed``, generator or
    parameters), and only then.  Memoised.
    """
    check_family(family)
    run_start, run_stop = int(run_start), int(run_stop)
    if not 0 <= run_start < run_stop:
        raise ValueError(f"need 0 ≤ run_start < run_stop, got [{run_start}, {run_stop})")
    registry = _data_registry()
    text = "".join(registry.load_instance(family, r).sha256 for r in range(run_start, run_stop))
    return hashlib.sha256(text.encode("ascii")).hexdigest()
