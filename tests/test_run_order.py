"""The aggregation over runs does not depend on their order: permuting the runs, and the shards
they come in, leaves every byte of the written tables unchanged (regret curves, Table 1 of
Komiyama et al.).  The sums are correctly rounded (duelbench.report.numerics), so the order of
their terms cannot show, even in a table written at full precision."""

from __future__ import annotations

import numpy as np
import pandas as pd

from duelbench.bounds.ccb import ccb_variant_names
from duelbench.engine.result import SimulationResult
from duelbench.experiments.aggregate import summarise, write_table
from duelbench.experiments.komiyama2016 import table1 as kt
from duelbench.experiments.tables import write_rows

KINDS = ("copeland",)


def _shards(regret: np.ndarray, bounds: list[int]) -> list[SimulationResult]:
    """``regret`` (runs x checkpoints) cut into shards of the runs between consecutive ``bounds``."""
    checkpoints = np.array([10, 100, 1000], dtype=np.int64)
    return [SimulationResult(algorithm="rucb", dataset="arxiv", params={}, horizon=1000, seed=1,
                             checkpoints=checkpoints, regrets={"copeland": regret[a:b]},
                             run_indices=np.arange(a, b, dtype=np.int64))
            for a, b in zip(bounds[:-1], bounds[1:])]


def _permuted_rows(result: SimulationResult, order: np.ndarray) -> SimulationResult:
    """The same runs (each with its run index) in the order ``order``."""
    return SimulationResult(algorithm=result.algorithm, dataset=result.dataset, params=result.params,
                            horizon=result.horizon, seed=result.seed, checkpoints=result.checkpoints,
                            regrets={k: v[order] for k, v in result.regrets.items()},
                            run_indices=result.run_indices[order])


def _curve_bytes(result: SimulationResult, path) -> bytes:
    write_table(summarise(result, param_hash="abc", kinds=KINDS), str(path))
    return path.read_bytes()


def _regret_runs(seed: int) -> np.ndarray:
    """Runs x checkpoints whose mean an order-dependent sum gets wrong in its 12th digit: one run
    with regret 2^53 among 10^4 with regret 1 (half an ulp of 2^53 each, lost when added to it)."""
    rng = np.random.default_rng(seed)
    runs = np.ones((10_001, 3))
    runs[:, 1:] = rng.lognormal(3, 1, (runs.shape[0], 2))
    runs[0, 0] = 2.0**53
    return runs


def test_regret_curves_are_independent_of_the_order_of_runs_and_shards(tmp_path):
    regret = _regret_runs(0)
    bounds = [0, 2_500, 5_000, 7_500, 10_001]
    reference = _curve_bytes(SimulationResult.concatenate(_shards(regret, bounds)), tmp_path / "a.csv")
    rng = np.random.default_rng(1)
    shards = _shards(regret, bounds)
    for _ in range(3):
        joined = SimulationResult.concatenate([shards[i] for i in rng.permutation(len(shards))])
        assert _curve_bytes(joined, tmp_path / "b.csv") == reference
        order = rng.permutation(joined.runs)
        assert _curve_bytes(_permuted_rows(joined, order), tmp_path / "c.csv") == reference
    last_first = np.roll(np.arange(regret.shape[0]), -1)  # the large run added after the others
    assert _curve_bytes(_permuted_rows(joined, last_first), tmp_path / "d.csv") == reference


def _table1_samples(seed: int, n: int = 2_000) -> pd.DataFrame:
    """A synthetic sample table of Komiyama et al.'s Table 1 (its columns, plausible values)."""
    rng = np.random.default_rng(seed)
    lb = rng.lognormal(6.5, 0.6, n)
    df = {"sample": np.arange(n), "lb": lb, "ecwb": lb * rng.uniform(1.0, 1.3, n),
          "has_condorcet_winner": rng.random(n) < 0.7, "tries": rng.integers(1, 40, n).astype(float),
          "n_copeland_winners": rng.integers(1, 4, n).astype(float)}
    for k, v in enumerate(ccb_variant_names()):
        df[v] = lb * rng.uniform(20.0 + k, 900.0, n)
    return pd.DataFrame(df)


def _table1_bytes(df: pd.DataFrame, path) -> bytes:
    write_rows(str(path), kt.TABLE1_COLUMNS, kt.summary(df, ccb_variant_names()[0]))
    return path.read_bytes()


def test_table1_is_independent_of_the_order_of_the_samples(tmp_path):
    df = _table1_samples(2)
    reference = _table1_bytes(df, tmp_path / "a.csv")
    rng = np.random.default_rng(3)
    for k in range(3):
        shuffled = df.iloc[rng.permutation(len(df))].reset_index(drop=True)
        assert _table1_bytes(shuffled, tmp_path / f"{k}.csv") == reference
