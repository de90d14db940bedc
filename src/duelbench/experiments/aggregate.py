"""Aggregation of result shards into tidy tables (shared by every experiment).

A *group* is the list of shards of one (dataset, algorithm, parameters, horizon) job, e.g. as
returned by :func:`duelbench.engine.jobs.group_shards`. :func:`load_group` concatenates its
shards in run order and checks that the runs are exactly the requested ones;
:func:`summarise` turns a :class:`~duelbench.engine.result.SimulationResult` into one row per
(regret kind, checkpoint) with mean, standard error and number of runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from duelbench.engine.shard_sources import sources_for
from duelbench.provenance.sidecar import atomic_write
from duelbench.report.numerics import column_fmeans, column_fsems

#: Columns of a regret-curve table (in this order).
CURVE_COLUMNS = ["dataset", "algorithm", "param_hash", "t", "mean", "stderr", "n_runs", "kind"]


def load_group(specs: Sequence, kinds: Iterable[str]) -> "object":
    """Concatenate the shards of one job (``specs``: :class:`ShardSpec` list) in run order.

    Each shard is read from the results archive when it holds the shard, valid for this code,
    with exactly the regret ``kinds`` (the experiment's archived kinds), else from its results
    file (:mod:`duelbench.engine.shard_sources`).  Raises ``ValueError`` when the loaded run
    indices are not exactly the runs the shards cover (a shard with missing or extra runs).
    """
    specs = sorted(specs, key=lambda s: s.run_start)
    result = sources_for(kinds).load(specs)
    expected = np.concatenate([np.arange(s.run_start, s.run_stop) for s in specs])
    got = np.asarray(result.run_indices)
    if got.shape != expected.shape or not np.array_equal(got, expected):
        raise ValueError(
            f"{specs[0].dataset}/{specs[0].algorithm}: shards hold runs {got.min() if got.size else '-'}…"
            f"{got.max() if got.size else '-'} ({got.size} runs), expected {expected.size} runs "
            f"{expected[0]}…{expected[-1]}"
        )
    return result


def has_kind(result, kind: str) -> bool:
    """Whether ``result`` defines regret ``kind`` (a recorded or derived kind with finite values)."""
    try:
        values = result.regret_of(kind) if hasattr(result, "regret_of") else result.regrets[kind]
    except KeyError:
        return False
    return bool(np.isfinite(values).any())


def summarise(result, *, param_hash: str, kinds: Iterable[str] = ("copeland",), skip_undefined: bool = True) -> pd.DataFrame:
    """One row per (kind, checkpoint): mean and standard error (ddof = 1) over runs, by correctly
    rounded sums (:func:`duelbench.report.numerics.column_fmeans`), so neither the order of the
    runs nor the processor changes a digit.

    Kinds that are undefined for the instance (e.g. Condorcet regret without a Condorcet
    winner: all NaN) are left out when ``skip_undefined``.
    """
    frames = []
    t = np.asarray(result.checkpoints, dtype=np.int64)
    for kind in kinds:
        if skip_undefined and not has_kind(result, kind):
            continue
        regret = result.regret_of(kind)
        mean, stderr = column_fmeans(regret), column_fsems(regret)
        n = int(np.asarray(result.run_indices).shape[0])
        frames.append(pd.DataFrame({
            "dataset": result.dataset, "algorithm": result.algorithm, "param_hash": param_hash,
            "t": t, "mean": mean, "stderr": stderr, "n_runs": n, "kind": kind,
        }))
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in CURVE_COLUMNS})
    return pd.concat(frames, ignore_index=True)[CURVE_COLUMNS]


def summarise_shards(groups: Mapping[tuple, Sequence], *, kinds: Iterable[str] = ("copeland",)) -> pd.DataFrame:
    """:func:`summarise` every group of shards; rows ordered by dataset, algorithm, hash, kind, t."""
    kinds = list(kinds)
    frames = [summarise(load_group(specs, kinds), param_hash=specs[0].param_hash, kinds=kinds)
              for specs in groups.values()]
    table = pd.concat(frames, ignore_index=True) if frames else summarise(None, param_hash="", kinds=[])
    order = {k: i for i, k in enumerate(kinds)}
    table = table.assign(_k=table["kind"].map(order)).sort_values(
        ["dataset", "algorithm", "param_hash", "_k", "t"], kind="stable").drop(columns="_k")
    return table.reset_index(drop=True)


def write_table(table: pd.DataFrame, path: str, columns: Sequence[str] | None = None) -> None:
    """Write ``table`` as CSV atomically (floats with 12 significant digits, ``\\n`` line ends)."""
    atomic_write(path, lambda fh: table.to_csv(fh, index=False, columns=list(columns) if columns else None,
                                               float_format="%.12g", lineterminator="\n"),
                 "w", newline="", encoding="utf-8")
