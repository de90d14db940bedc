"""Simulation shards in the results archive (:mod:`duelbench.archive`): key, path, conversion.

An archived shard holds runs ``[a, b)`` of one (dataset, algorithm, parameters, horizon, seed)
job, with only the regret kinds its readers use, as exact float64.  Its **key** is everything the
content depends on:

* the job: dataset name and the sha256 of its matrix, algorithm, canonical parameters, horizon,
  run range, seed, arm shuffling, the regret kinds kept; for a family of per-run instances
  (:mod:`duelbench.engine.families`) ``dataset_sha256`` is
  :func:`~duelbench.engine.families.family_sha256` of exactly the shard's runs ``[a, b)`` (sha256
  of the concatenated sha256 hex strings of instances a … b−1), so a shard whose instances change
  (e.g. another ``per_run_seed``) is stale;
* the code: :func:`duelbench.algorithms.registry.source_hash` without the dataset loaders
  (import closure of the algorithm and the engine, normalised source; the matrix enters by its
  own sha256);
* the environment: sha256 of ``requirements.lock`` (a numba or numpy update can change streams).

Its **path** names the job only (``simulation/<dataset>/<algorithm>-<paramhash>/T<horizon>/
seed<seed>-runs-<a>-<b>.entry``), so a shard whose code has changed is found and reported as
stale, never used.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import numpy as np

from duelbench.algorithms.registry import canonical_params, param_hash, source_hash
from duelbench.archive.store import Archive, Lookup, VALID
from duelbench.data.registry import is_family
from duelbench.provenance.codehash import lock_hash

from .families import family_sha256
from .result import RECORDED_KINDS, SimulationResult
from .simulate import resolve_matrix

KIND = "simulation"


def entry_path(dataset: str, algorithm: str, params: dict, horizon: int, run_start: int, run_stop: int,
               seed: int) -> str:
    """Archive path of a shard (its identity, without code or environment)."""
    return (f"{KIND}/{dataset}/{algorithm}-{param_hash(algorithm, params)}/T{int(horizon)}/"
            f"seed{int(seed)}-runs-{int(run_start)}-{int(run_stop)}.entry")


def shard_key(dataset: str, algorithm: str, params: dict, horizon: int, run_start: int, run_stop: int, seed: int,
              kinds: Iterable[str], *, permute: bool = True) -> dict:
    """The key of a shard as the code and environment of this process would compute it."""
    kinds = sorted(set(kinds))
    unknown = sorted(set(kinds) - set(RECORDED_KINDS))
    if unknown or not kinds:
        raise ValueError(f"regret kinds to archive must be a non-empty subset of {RECORDED_KINDS}, got {kinds}")
    return {
        "kind": KIND, "dataset": dataset, "dataset_sha256": dataset_sha256(dataset, run_start, run_stop),
        "algorithm": algorithm, "params": canonical_params(algorithm, params), "horizon": int(horizon),
        "runs": [int(run_start), int(run_stop)], "seed": int(seed), "permute": bool(permute), "kinds": kinds,
        "code": simulation_code_hash(algorithm), "lock": lock_hash(),
    }


def dataset_sha256(dataset: str, run_start: int, run_stop: int) -> str:
    """The ``dataset_sha256`` of a key: :func:`matrix_sha256` of a plain dataset, or
    :func:`~duelbench.engine.families.family_sha256` of the runs ``[run_start, run_stop)`` of a
    family of per-run instances."""
    if _is_family(dataset):
        return family_sha256(dataset, int(run_start), int(run_stop))
    return matrix_sha256(dataset)


def _is_family(dataset) -> bool:
    return is_family(dataset)


@functools.lru_cache(maxsize=None)
def matrix_sha256(dataset: str) -> str:
    """sha256 of a registered dataset's matrix (memoised: a workflow keys a thousand shards
    over a handful of matrices).  A family of per-run instances has no single matrix: it raises
    ValueError naming the family (see :func:`dataset_sha256`)."""
    if _is_family(dataset):
        raise ValueError(f"dataset {dataset!r} is a family of per-run instances: it has no single matrix sha256; "
                         f"hash the instances of the runs used with duelbench.engine.families.family_sha256"
                         f"({dataset!r}, run_start, run_stop)")
    return resolve_matrix(dataset).sha256


@functools.lru_cache(maxsize=None)
def simulation_code_hash(algorithm: str) -> str:
    """The ``code`` field of a key: :func:`source_hash` without the dataset loaders (memoised)."""
    return source_hash(algorithm, with_data=False)


def key_of_result(result: SimulationResult, kinds: Iterable[str]) -> dict:
    """The key of a computed shard (its job read from the result itself)."""
    runs = np.asarray(result.run_indices)
    if runs.size == 0 or not np.array_equal(runs, np.arange(runs[0], runs[0] + runs.size)):
        raise ValueError("an archived shard holds consecutive runs")
    return shard_key(result.dataset, result.algorithm, result.params, result.horizon, int(runs[0]),
                     int(runs[-1]) + 1, result.seed, kinds, permute=result.permute)


def to_arrays(result: SimulationResult, kinds: Iterable[str]) -> dict[str, np.ndarray]:
    """The arrays an archived shard keeps: checkpoints and the requested regret kinds."""
    arrays = {"checkpoints": np.asarray(result.checkpoints, dtype=np.int64)}
    for kind in sorted(set(kinds)):
        arrays[f"regret_{kind}"] = np.asarray(result.regret_of(kind), dtype=np.float64)
    return arrays


def from_arrays(key: dict, arrays: dict[str, np.ndarray]) -> SimulationResult:
    """The :class:`SimulationResult` of an archived shard (only its archived kinds)."""
    a, b = key["runs"]
    return SimulationResult(
        algorithm=key["algorithm"], dataset=key["dataset"], params=key["params"], horizon=key["horizon"],
        seed=key["seed"], checkpoints=arrays["checkpoints"],
        regrets={kind: arrays[f"regret_{kind}"] for kind in key["kinds"]},
        run_indices=np.arange(a, b, dtype=np.int64), permute=key["permute"], meta={"archived": True},
    )


def archive_result(archive: Archive, result: SimulationResult, kinds: Iterable[str],
                   measured: dict | None = None) -> dict:
    """Put a computed shard into ``archive`` (``measured``: its job's CPU time, see
    :meth:`Archive.put`); returns its manifest line."""
    key = key_of_result(result, kinds)
    path = entry_path(result.dataset, result.algorithm, result.params, result.horizon, key["runs"][0],
                      key["runs"][1], result.seed)
    return archive.put(path, key, to_arrays(result, kinds), measured=measured)


def lookup_shard(archive: Archive, dataset: str, algorithm: str, params: dict, horizon: int, run_start: int,
                 run_stop: int, seed: int, kinds: Iterable[str]) -> tuple[Lookup, SimulationResult | None]:
    """The archived shard if valid for this process's code and environment, else ``None``
    (with the lookup saying whether it was missing, stale or tampered)."""
    key = shard_key(dataset, algorithm, params, horizon, run_start, run_stop, seed, kinds)
    found = archive.lookup(entry_path(dataset, algorithm, params, horizon, run_start, run_stop, seed), key)
    return found, (from_arrays(key, found.arrays) if found.status == VALID else None)
