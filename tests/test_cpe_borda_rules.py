"""The duel of a CLUCB-Borda round on hand-made preference values: ``X = 1`` iff ``u₂ < p(z_t, e′)``,
strictly, for real duels and self-duels alike (Chen et al. 2020, Algorithm 1 line 9, L148; the
stream of D7: ``u₁`` draws ``M′``, ``u₂`` the duel).

A uniform equal to ``p`` has probability about 2⁻⁵³ per duel, so no trajectory test sees the
boundary.  Here a run is recorded once, the ``u₂`` of one of its duels is read off the same
random stream, and the run is repeated with ``p`` of that duel set to exactly that ``u₂``: the
trajectory up to the duel is unchanged and its outcome must be ``X = 0`` (and ``X = 1`` with ``p``
one ulp above).  The compiled round loop (:func:`duelbench.cpe.borda_kernel.run`) is called
directly, since a self-duel's ``p(e, e)`` is 1/2 in every valid instance.
"""

from __future__ import annotations

import numpy as np
import pytest

from duelbench.cpe import borda_kernel as _k
from duelbench.cpe.instance import BipartiteInstance
from duelbench.cpe.matching import enumerate_matchings

SEED = 3
CAP = 60


def _two_edges():
    """One position, two candidate edges: ℳ = {{0}, {1}}, so half of the draws of M′ are self-duels."""
    return BipartiteInstance(2, 1, [(0, 0), (1, 0)], np.array([[0.5, 0.7], [0.3, 0.5]]), "two")


def _run(inst, P, self_half=False):
    table = enumerate_matchings(inst)
    out = _k.run(table, np.ascontiguousarray(inst.position, dtype=np.int64), np.ascontiguousarray(P),
                 float(inst.K), 0.1, 0.05, _k.MODE_PAC, False, 0, self_half, CAP,
                 np.random.default_rng(np.random.SeedSequence(SEED)), True)
    return out[8]


def _u2(k):
    """``u₂`` of sample k: the second of the two uniforms of round k."""
    return np.random.default_rng(np.random.SeedSequence(SEED)).random((k + 1, 2))[k, 1]


@pytest.mark.parametrize("self_duel", [True, False], ids=["self-duel", "real-duel"])
def test_duel_outcome_is_u2_strictly_below_p(self_duel):
    inst = _two_edges()
    trace = _run(inst, inst.P)
    assert trace.shape[0] == CAP
    k = next(i for i in range(CAP) if (trace[i, 0] == trace[i, 1]) == self_duel)
    z, opp = int(trace[k, 0]), int(trace[k, 1])
    v = _u2(k)
    for p, x in ((v, 0), (np.nextafter(v, 1.0), 2), (np.nextafter(v, 0.0), 0)):
        P = inst.P.copy()
        P[z, opp] = p
        if opp != z:
            P[opp, z] = 1.0 - p
        other = _run(inst, P)
        assert other[:k].tolist() == trace[:k].tolist()  # the first k duels read other entries of P
        assert other[k].tolist() == [z, opp, x]


def test_self_duel_half_ignores_u2():
    """``self_duel = "half"`` records X = 1/2 (2X = 1) whatever u₂ and p(e, e)."""
    inst = _two_edges()
    trace = _run(inst, inst.P, self_half=True)
    self_rows = trace[trace[:, 0] == trace[:, 1]]
    assert len(self_rows) > 0 and set(self_rows[:, 2].tolist()) == {1}


# --- the biased sampler's bad-row test: u₁ < η -------------------------------------------------

def test_draw_row_takes_the_bad_row_only_strictly_below_eta():
    """𝒮(η) = (1 − η)·Uniform + η·δ_{M_bad} with one uniform: M_bad iff u₁ < η, else row
    ⌊(u₁ − η)/(1 − η)·|ℳ|⌋ (capped at the last row)."""
    assert _k.draw_row(0.25, 4, True, 0.25, 3) == 0  # u₁ = η: the uniform part, v = 0
    assert _k.draw_row(np.nextafter(0.25, 0.0), 4, True, 0.25, 3) == 3
    assert _k.draw_row(0.0, 4, True, 0.0, 3) == 0  # η = 0: never the bad row
    assert _k.draw_row(0.625, 4, True, 0.25, 0) == 2  # (0.625 − 0.25)/0.75 · 4 = 2
    assert _k.draw_row(0.5, 4, False, 0.9, 0) == 2  # exact sampler: η and bad_row ignored
    assert _k.draw_row(np.nextafter(1.0, 0.0), 4, False, 0.0, 0) == 3
    assert _k.draw_row(np.nextafter(1.0, 0.0), 4, True, 0.5, 0) == 3


def _three_edges():
    """One position, edges 0, 1, 2 (ℳ = {{0}, {1}, {2}}): edge 2 surely beats 0 and surely loses to 1."""
    P = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 1.0], [1.0, 0.0, 0.5]])
    return BipartiteInstance(3, 1, [(0, 0), (1, 0), (2, 0)], P, "three")


def test_reduced_samples_bad_row_strictly_below_eta():
    """``reduced_samples`` with the biased sampler and η equal to one of its own u₁: that sample
    draws row ⌊0·|ℳ|⌋ = {0} (X = 1 for edge 2), not M_bad = {1} (X = 0); every sample draws the
    row of ``draw_row``, the last row {2} (a self-duel) included."""
    from duelbench.cpe.borda import reduced_samples

    inst = _three_edges()
    n = 200
    u = np.random.default_rng(4).random((n, 2))
    k = int(np.argmin(u[:, 0]))
    eta = u[k, 0]  # the smallest u₁: every other sample uses the uniform part
    x = reduced_samples(inst, 2, n, np.random.default_rng(4), sampler="biased", eta=eta, bad=[1])
    rows = np.array([_k.draw_row(u1, 3, True, eta, 1) for u1 in u[:, 0]])
    assert rows[k] == 0 and set(rows.tolist()) == {0, 1, 2}  # every row reachable, the last one included
    opp = rows  # one position: row r is the matching {r}
    assert x.tolist() == (u[:, 1] < inst.P[2, opp]).astype(float).tolist()
    assert x[k] == 1.0


# --- the oracle's tie tolerance ---------------------------------------------------------------

def test_oracle_ties_within_tie_tol_go_to_the_lowest_row():
    """``MWMC(w)``: the lowest row whose weight is within TIE_TOL = 1e-12 of the maximum."""
    table = np.array([[0], [1], [2]], dtype=np.int64)
    weights = np.zeros(3)
    assert _k.oracle(table, np.array([1.0 - 9e-13, 1.0, 0.5]), weights) == 0  # a tie
    assert weights.tolist() == [1.0 - 9e-13, 1.0, 0.5]
    assert _k.oracle(table, np.array([1.0 - 2e-12, 1.0, 0.5]), weights) == 1  # not a tie
    assert _k.oracle(table, np.array([1.0 - _k.TIE_TOL, 1.0, 0.5]), weights) == 0  # the boundary is a tie
    assert _k.oracle(table, np.array([0.25, 0.5, 0.5]), weights) == 1  # an exact tie
    table2 = np.array([[0, 2], [0, 3], [1, 3]], dtype=np.int64)  # row weights summed in position order
    assert _k.oracle(table2, np.array([0.5, 0.25, 0.25, 0.5]), np.zeros(3)) == 1
