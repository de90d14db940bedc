"""Win counts and empirical preferences (Komiyama et al. 2016, L67: 0/0 := 1/2)."""

import numpy as np

from duelbench.stats.counts import empirical_mean, n_pair, new_counts, record_outcome


def test_empirical_mean_is_a_complementary_preference_with_unobserved_pairs_at_one_half():
    rng = np.random.default_rng(4)
    W = rng.integers(0, 6, size=(6, 6)).astype(np.float64)
    W[0, 2] = W[2, 0] = 0.0  # an unobserved pair
    W[3, 5] = W[5, 3] = 0.0
    for i in range(6):
        assert empirical_mean(W, i, i) == 0.5
        for j in range(6):
            if i != j:
                assert empirical_mean(W, i, j) + empirical_mean(W, j, i) == 1.0
                if n_pair(W, i, j) > 0:
                    assert empirical_mean(W, i, j) == W[i, j] / (W[i, j] + W[j, i])
    assert empirical_mean(W, 0, 2) == empirical_mean(W, 5, 3) == 0.5
    assert empirical_mean(new_counts(3), 0, 1) == 0.5


def test_record_outcome_counts_the_winner_of_the_ordered_pair():
    W = new_counts(3)
    record_outcome(W, 0, 2, True)
    record_outcome(W, 0, 2, False)
    record_outcome(W, 2, 0, True)
    assert W[0, 2] == 1.0 and W[2, 0] == 2.0 and n_pair(W, 0, 2) == n_pair(W, 2, 0) == 3.0
    assert W.sum() == 3.0
