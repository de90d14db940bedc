"""Sub-linear regret: [R(T) − R(T/2)] / R(T/2) < 0.5 at T = 10^5 over 20 runs.

For logarithmic regret the ratio tends to ln 2 / ln(T/2) ≈ 0.064; for linear regret it is 1.
The gate 0.5 separates the two; Random (linear regret) is the negative control and must fail.
"""

import warnings

import numpy as np
import pytest

from duelbench import simulate

T, RUNS = 100_000, 20


def growth_ratio(algorithm, dataset):
    cps = np.array([T // 2, T])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = simulate(algorithm, dataset, T, RUNS, seed=0, checkpoints=cps)
    half, full = r.regret.mean(axis=0)
    return (full - half) / half


@pytest.mark.parametrize("dataset", ["arxiv", "mslr5_condorcet"])
@pytest.mark.parametrize("algorithm", ["rucb", "rmed1", "dts"])
def test_consistent_algorithms_pass_growth_test(algorithm, dataset):
    assert growth_ratio(algorithm, dataset) < 0.5


@pytest.mark.parametrize("dataset", ["arxiv", "mslr5_condorcet"])
def test_random_fails_growth_test(dataset):
    assert growth_ratio("random", dataset) >= 0.5
