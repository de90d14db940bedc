"""``sort_prefix`` sorts exactly what ``np.sort`` sorts, in place, and touches nothing beyond n."""

import numpy as np
import pytest

from duelbench.algorithms.sorting import INSERTION_MAX, sort_prefix


@pytest.mark.parametrize("n", [0, 1, 2, 3, INSERTION_MAX, INSERTION_MAX + 1, 17, 64, 1000])
def test_sort_prefix_agrees_with_numpy(n):
    rng = np.random.default_rng(n)
    for high in (3, 10 * n + 1):  # many ties, then few
        a = rng.integers(0, high, size=n + 5)
        expected = np.concatenate([np.sort(a[:n]), a[n:]])
        sort_prefix(a, n)
        assert np.array_equal(a, expected)


def test_sort_prefix_on_sorted_and_reversed_input():
    for a in (np.arange(100), np.arange(100)[::-1].copy(), np.zeros(100, dtype=np.int64)):
        expected = np.sort(a)
        sort_prefix(a, a.shape[0])
        assert np.array_equal(a, expected)
