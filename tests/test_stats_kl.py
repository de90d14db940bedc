"""Bernoulli KL divergence (Komiyama et al. 2016, L83) and its documented clip of q."""

import math

import pytest

from duelbench.stats import kl
from duelbench.stats.kl import kl_bernoulli, kl_to_half
from reference.kl import bernoulli_kl as exact_kl


@pytest.mark.parametrize("p", [0.0, 0.3, 0.5, 0.97, 1.0])
@pytest.mark.parametrize("q", [1e-11, 1e-10, 0.2, 0.5, 1 - 1e-10])
def test_kl_is_exact_down_to_the_documented_clip(p, q):
    assert kl_bernoulli(p, q) == pytest.approx(exact_kl(p, q), rel=1e-12)


def test_q_is_clipped_to_eps():
    assert kl.EPS == 1e-12
    assert kl_bernoulli(0.5, 0.0) == kl_bernoulli(0.5, kl.EPS)
    assert kl_bernoulli(0.5, 1.0) == kl_bernoulli(0.5, 1.0 - kl.EPS)
    assert math.isfinite(kl_bernoulli(0.3, 0.0))


def test_d_is_kl_to_one_half_and_zero_only_there():
    assert kl_to_half(0.5) == 0.0
    for mu in (0.0, 0.1, 0.49, 0.51, 1.0):
        assert kl_to_half(mu) == pytest.approx(exact_kl(mu, 0.5), rel=1e-14) and kl_to_half(mu) > 0
    assert kl_to_half(0.2) == pytest.approx(kl_to_half(0.8), rel=1e-14)  # symmetric around 1/2
