"""Tests for duelbench.bounds.ccb (paper 001 Theorem 11, L224-L232; paper 000 eq. (10), L255-L263)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import duelbench
from duelbench.bounds.ccb import (
    CCB_DELTAS,
    CCB_MAIN_VARIANT,
    DEFAULT_ALPHA,
    bound_constants_row,
    ccb_a3,
    ccb_constants,
    ccb_eq10,
    ccb_quantities,
    ccb_rhs,
    ccb_variant_names,
)
from duelbench.bounds.lower_bound import lower_bound_constant
from duelbench.problems.regret import regret_matrix

PRINTED = ["cyclic", "sushi", "gap", "multisol", "arxiv", "mslr5_condorcet_printed", "mslr5_noncondorcet_printed"]


def load(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return duelbench.load_matrix(name)


def random_matrix(K, rng, min_gap=0.001, max_gap=0.45):
    sign = np.where(rng.random((K, K)) < 0.5, 1.0, -1.0)
    gaps = np.exp(rng.uniform(np.log(min_gap), np.log(max_gap), (K, K)))
    up = np.triu(0.5 + sign * gaps, 1)
    P = up + np.tril(1.0 - up.T, -1)
    np.fill_diagonal(P, 0.5)
    return P


RANDOM = [random_matrix(int(K), np.random.default_rng(s)) for s, K in enumerate(np.random.default_rng(1).integers(3, 17, 150))]


# --------------------------------------------------------------------------- hand-computed values
def test_cyclic_by_hand():
    # winner arm 1 (0-based 0), C = 1, L_C = 0; winner/non-winner gaps 0.1; each non-winner's
    # largest loss gap is |0.1 - 0.5| = 0.4 = Delta*_i; Delta = min(0.1, 0.4) = 0.1.
    v = ccb_constants(load("cyclic"))
    assert v["ccb_rhs_def36"] == pytest.approx(2 * 4 * (1 + 0 + 1) / 0.1**2)
    assert v["ccb_a3"] == pytest.approx(3 / 0.1**2 + 2 * (0 + 1) * 3 / 0.4**2)
    assert v["ccb_rhs_globalmin"] == pytest.approx(1600.0)
    assert v["ccb_eq10"] == pytest.approx(4 * (1 + 0 + 1) / 0.1**2)


def test_gap_by_hand():
    # winner 0 with L_C = 1 (loses to arm 5); smallest winner/non-winner gap |0.51 - 0.5| = 0.01.
    q = ccb_quantities(load("gap"))
    assert q.winners == (0,) and q.C == 1 and q.L_C == 1
    assert q.delta_def36 == pytest.approx(0.01)
    assert ccb_rhs(load("gap")) == pytest.approx(2 * 5 * (1 + 1 + 1) / 0.01**2)


def test_multisol_by_hand():
    # winners 0, 1, 2 (C = 3, L_C = 1); winner/non-winner gaps all 0.3; Delta*_3 = 2nd largest of
    # {0.3, 0.3, 0.3} = 0.3, Delta*_4 = 2nd largest of {0.3, 0.3, 0.3, 0.1} = 0.3; global min gap 0.1.
    v = ccb_constants(load("multisol"))
    assert v["ccb_rhs_def36"] == pytest.approx(2 * 5 * (3 + 1 + 1) / 0.3**2)
    assert v["ccb_rhs_cwncw"] == pytest.approx(2 * 5 * 5 / 0.3**2)
    assert v["ccb_a3"] == pytest.approx(6 / 0.3**2 + 2 * 2 * 2 / 0.3**2)
    assert v["ccb_rhs_globalmin"] == pytest.approx(2 * 5 * 5 / 0.1**2)
    assert v["ccb_eq10"] == pytest.approx(5 * 5 / 0.1**2)


def test_arxiv_tie():
    """The ArXiv tie (non-winners 4 and 6) makes only the global-minimum variants infinite (decision)."""
    v = ccb_constants(load("arxiv"))
    for name, x in v.items():
        if "globalmin" in name and "_nz" not in name or name == "ccb_eq10":
            assert x == math.inf, name
        else:
            assert math.isfinite(x) and x > 0, name
    q = ccb_quantities(load("arxiv"))
    assert q.delta_globalmin == 0.0
    assert q.delta_globalmin_nz == pytest.approx(0.01)


def test_all_winners_gives_zero():
    P = np.array([[0.5, 0.7, 0.3], [0.3, 0.5, 0.7], [0.7, 0.3, 0.5]])
    v = ccb_constants(P)
    assert v["ccb_a3"] == 0.0 and v["ccb_rhs_def36"] == 0.0 and v["ccb_rhs_cwncw"] == 0.0
    assert v["ccb_rhs_globalmin"] == pytest.approx(2 * 3 * (3 + 1 + 1) / 0.2**2)


# --------------------------------------------------------------------------- structure
def test_variant_names_and_main():
    names = ccb_variant_names()
    assert CCB_MAIN_VARIANT == "ccb_rhs_def36" and CCB_MAIN_VARIANT in names
    assert len(names) == len(set(names)) == 4 * (1 + len(CCB_DELTAS)) + 1
    assert tuple(ccb_constants(load("gap"))) == names


@pytest.mark.parametrize("name", PRINTED)
def test_unit_and_alpha_twins(name):
    v = ccb_constants(load(name), alpha=0.8)
    for base in [n for n in v if not n.endswith(("_halved", "_4alpha")) and n != "ccb_eq10"]:
        x = v[base]
        assert v[base + "_halved"] == pytest.approx(x / 2) or x == math.inf
        assert v[base + "_4alpha"] == pytest.approx(4 * 0.8 * x) or x == math.inf
        assert v[base + "_4alpha_halved"] == pytest.approx(4 * 0.8 * x / 2) or x == math.inf
    assert ccb_constants(load(name))["ccb_a3_4alpha"] == pytest.approx(4 * DEFAULT_ALPHA * v["ccb_a3"])
    with pytest.raises(ValueError):
        ccb_constants(load(name), alpha=0.5)


def test_halving_matches_the_regret_units():
    """Paper 001's Definition 1 regret is exactly twice paper 000's r_ij on tie-free matrices (000:L73)."""
    for P in RANDOM[:30]:
        assert np.allclose(regret_matrix(P, "copeland_zoghi"), 2 * regret_matrix(P, "copeland"))


def test_orderings_on_random_matrices():
    """Delta_globalmin <= Delta_def36 <= Delta_cwncw, and A^(3) <= 2K(C+L_C+1)/Delta^2 (the inequality of L232)."""
    for P in RANDOM:
        q = ccb_quantities(P)
        if q.C == q.K:
            continue
        assert q.delta_globalmin <= q.delta_def36 <= q.delta_cwncw
        a3 = ccb_a3(P)
        assert a3 <= ccb_rhs(P, "def36") * (1 + 1e-12)
        assert ccb_rhs(P, "cwncw") <= ccb_rhs(P, "def36") <= ccb_rhs(P, "globalmin")
        assert ccb_eq10(P) == pytest.approx(ccb_rhs(P, "globalmin") / 2)  # no ties: C, L_1 agree


def test_delta_star_alternative_formula():
    """Delta*_i = 1/2 - (L_C+1)-th smallest p_ij over j (Definition 3.3, 001:L163; L566-L568)."""
    for P in RANDOM:
        q = ccb_quantities(P)
        for i in range(q.K):
            if i in q.winners:
                assert q.delta_star[i] == 0.0
            else:
                assert q.delta_star[i] == pytest.approx(0.5 - np.sort(P[i])[q.L_C])


def test_delta_invalid():
    with pytest.raises(ValueError):
        ccb_rhs(load("gap"), delta="min")


# --------------------------------------------------------------------------- table row
@pytest.mark.parametrize("name", PRINTED)
def test_bound_constants_row(name):
    P = load(name)
    row = bound_constants_row(P)
    assert list(row)[:5] == ["matrix", "K", "copeland_winners", "lb", "ecwb"]
    assert list(row)[5:] == list(ccb_variant_names())
    assert row["matrix"] == name and row["K"] == P.K
    assert row["copeland_winners"] == ";".join(str(w) for w in P.copeland_winners(by="losses"))
    assert row["lb"] == pytest.approx(lower_bound_constant(P), rel=1e-12)
    try:
        from duelbench.bounds.ecw import ecw_constant
    except ImportError:
        assert math.isnan(row["ecwb"])
    else:
        assert row["ecwb"] == pytest.approx(float(ecw_constant(P)), rel=1e-12)
        assert row["ecwb"] >= row["lb"] * (1 - 1e-7)
    # CCB's bound is far above the lower bound on every printed matrix
    assert row[CCB_MAIN_VARIANT] > row["lb"]


def test_row_for_raw_array_and_custom_name():
    P = load("gap").values
    assert bound_constants_row(P)["matrix"] == ""
    assert bound_constants_row(P, name="x")["matrix"] == "x"
