"""Cached result shards: the unit of work of the workflow.

A shard holds runs ``a … b−1`` of one (fidelity, dataset, algorithm + parameters, horizon) job
at ``results/{fidelity}/{dataset}/{algorithm}-{paramhash}/T{horizon}/runs-{a}-{b}.npz``, so
quick and paper-fidelity runs and parameter variants never collide.  Its content depends only
on (dataset, algorithm, canonical parameters, horizon, run range, seed), never on the shard
layout, so ``duelbench.simulate(...)`` with the same arguments reproduces it bit for bit.  A
family of per-run instances (:mod:`duelbench.engine.families`) is simulated with
:func:`~duelbench.engine.families.simulate_family` (run r on the family's instance r), which
``duelbench.engine.families.simulate_family(...)`` reproduces likewise.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from duelbench.algorithms.registry import canonical_params, param_hash, source_hash
from duelbench.data.registry import is_family
from duelbench.provenance.codehash import lock_hash
from duelbench.provenance.integrity import FIX, ResultsFileError, read_verified
from duelbench.provenance.interrupt import check_interrupt
from duelbench.provenance.sidecar import atomic_write, write_sidecar

from .families import family_sha256, simulate_family
from .result import SimulationResult
from .simulate import simulate

_SHARD_RE = re.compile(r"runs-(\d+)-(\d+)\.npz$")


def shard_path(fidelity, dataset, algorithm, params, horizon, run_start, run_stop, root="results") -> str:
    """Path of a shard (``run_stop`` exclusive)."""
    ph = param_hash(algorithm, params)
    return f"{root}/{fidelity}/{dataset}/{algorithm}-{ph}/T{int(horizon)}/runs-{int(run_start)}-{int(run_stop)}.npz"


def shard_ranges(runs: int, runs_per_shard: int) -> list[tuple[int, int]]:
    """Split ``range(runs)`` into consecutive ``[a, b)`` chunks of at most ``runs_per_shard``."""
    if runs < 1 or runs_per_shard < 1:
        raise ValueError("runs and runs_per_shard must be ≥ 1")
    return [(a, min(a + runs_per_shard, runs)) for a in range(0, runs, runs_per_shard)]


def run_shard(out_path, *, dataset, algorithm, params, horizon, run_start, run_stop, seed, fidelity="adhoc",
              quiet=False) -> SimulationResult:
    """Simulate runs ``[run_start, run_stop)`` and write the shard and its provenance sidecar.

    A family of per-run instances (the dataset name decides) is simulated with
    :func:`~duelbench.engine.families.simulate_family`; its sidecar also records the
    ``dataset_sha256`` of the shard's instances (:func:`~duelbench.engine.families.family_sha256`).

    Progress (one line per finished run, with the elapsed time) goes to stderr unless ``quiet``.
    """
    out_path = Path(out_path)
    canon = canonical_params(algorithm, params)
    n = int(run_stop) - int(run_start)
    t0, c0 = time.perf_counter(), time.process_time()

    def progress(done, total):
        check_interrupt()  # Ctrl-C inside deferred_interrupts() ends the job here, between runs
        if not quiet:
            print(f"[{algorithm} on {dataset}, T={horizon}] run {run_start + done}/{run_stop} "
                  f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr, flush=True)

    stream = "SeedSequence(seed, spawn_key=(sha256(stream,dataset,algorithm,params) words, run))"
    extra = {}
    if is_family(dataset):
        result = simulate_family(algorithm, dataset, horizon, n, seed, run_start=int(run_start), progress=progress,
                                 **canon)
        stream = ("run r on instance '<dataset>.run<r>' (data: SeedSequence([per_run_seed, r])): "
                  "SeedSequence(seed, spawn_key=(sha256(stream,<dataset>.run<r>,algorithm,params) words, r))")
        extra = {"dataset_sha256": family_sha256(dataset, int(run_start), int(run_stop))}
    else:
        result = simulate(algorithm, dataset, horizon, n, seed, run_start=int(run_start), progress=progress, **canon)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    atomic_write(out_path, result.to_npz)
    write_sidecar(
        out_path,
        config={"fidelity": fidelity, "dataset": dataset, "algorithm": algorithm, "params": canon,
                "horizon": int(horizon), "run_start": int(run_start), "run_stop": int(run_stop), "seed": int(seed)},
        seeds={"seed": int(seed), "runs": [int(run_start), int(run_stop)], "stream": stream},
        extra={"source_hash": source_hash(algorithm), "lock_hash": lock_hash(), "steps": int(horizon) * n, **extra},
        run_info={"steps_per_second": int(horizon) * n / wall if wall > 0 else None},
        wall_time=wall, cpu_time=cpu,
    )
    return result


def load_shards(paths) -> SimulationResult:
    """Concatenate the runs of several shards of one job, in run order.

    Each file is checked against the sha256 its provenance sidecar records before it is read
    (:func:`~duelbench.provenance.integrity.read_verified`): a file without a sidecar, altered,
    undecodable or holding the runs of another shard raises
    :class:`~duelbench.provenance.integrity.ResultsFileError` naming it and the fix.
    """
    paths = [str(p) for p in paths]
    parts = [read_verified(p, SimulationResult.from_npz) for p in paths]
    try:
        return SimulationResult.concatenate(parts)
    except ValueError as exc:
        raise ResultsFileError(f"{', '.join(paths)}: {exc}; {FIX}") from exc


def check_runs(path: str, result: SimulationResult, run_start: int, run_stop: int) -> None:
    """Raise :class:`~duelbench.provenance.integrity.ResultsFileError` naming ``path`` unless
    ``result`` holds exactly runs ``[run_start, run_stop)`` (the shard its name promises)."""
    runs = [int(r) for r in result.run_indices]
    if runs != list(range(int(run_start), int(run_stop))):
        shown = f"{runs[0]}…{runs[-1]} ({len(runs)} runs)" if runs else "no runs"
        raise ResultsFileError(f"{path}: holds runs {shown}, expected runs {run_start}…{int(run_stop) - 1}; {FIX}")
