"""The incremental confident-beat relation equals a full recomputation from the bounds."""

import math

import numpy as np
import pytest

from duelbench.stats.bounds import lcb, ucb
from duelbench.stats.confident_beats import cb_advance, cb_new, cb_refresh_pair
from duelbench.stats.counts import record_outcome


def naive_relation(W, log_t, alpha):
    K = W.shape[0]
    beats = np.zeros((K, K), dtype=np.int8)
    for i in range(K):
        for j in range(K):
            if i != j and lcb(W, i, j, log_t, alpha) > 0.5:
                beats[i, j] = 1
    return beats


def test_incremental_relation_equals_naive_recomputation():
    rng = np.random.default_rng(3)
    K, alpha = 7, 0.51
    P = rng.uniform(0.1, 0.9, size=(K, K))
    W = np.zeros((K, K))
    cb = cb_new(K)
    for t in range(1, 4000):
        log_t = math.log(t)
        cb_advance(cb, log_t)
        if t % 37 == 0 or t < 50:
            naive = naive_relation(W, log_t, alpha)
            assert np.array_equal(cb[0], naive), f"mismatch at t={t}"
            assert np.array_equal(cb[1], naive.sum(axis=0))  # n_lost[i] = #{j : j beats i}
            assert np.array_equal(cb[2], naive.sum(axis=1))
            # u_ij >= 1/2  <=>  j does not confidently beat i
            for i in range(K):
                for j in range(K):
                    if i != j:
                        assert (ucb(W, i, j, log_t, alpha) >= 0.5) == (naive[j, i] == 0)
        # concentrate comparisons on a few pairs so that some become resolved and later expire
        i, j = (int(x) for x in rng.choice(K, size=2, replace=False, p=np.arange(1, K + 1) / (K * (K + 1) / 2)))
        record_outcome(W, i, j, rng.random() < P[i, j])
        cb_refresh_pair(cb, W, i, j, log_t, alpha)


def test_unobserved_and_tied_pairs_are_unresolved():
    K = 3
    W = np.zeros((K, K))
    W[0, 1] = W[1, 0] = 50.0  # exact empirical tie
    cb = cb_new(K)
    cb_refresh_pair(cb, W, 0, 1, math.log(100), 0.51)
    cb_refresh_pair(cb, W, 0, 2, math.log(100), 0.51)
    assert cb[0].sum() == 0
    W[0, 2] = 500.0  # 0 beats 2 500:0 -> resolved
    cb_refresh_pair(cb, W, 0, 2, math.log(100), 0.51)
    assert cb[0][0, 2] == 1 and cb[1][2] == 1 and cb[2][0] == 1


@pytest.mark.parametrize("name", ["rucb", "ccb", "dts"])
def test_alpha_is_at_the_index_the_module_reads(name):
    """RUCB, CCB and D-TS pass their params array to this module, which reads α at ALPHA."""
    from duelbench.algorithms.registry import get_algorithm, params_array
    from duelbench.stats.confident_beats import ALPHA

    spec = get_algorithm(name)
    assert list(spec.defaults)[ALPHA] == "alpha"
    assert params_array(name, {"alpha": 0.77})[ALPHA] == 0.77
