"""Processor-independent linear algebra of the CPE algorithms (duelbench.cpe.exact) and the values
computed with it: the same as BLAS's up to rounding, and the same bits compiled or not."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import nnls as scipy_nnls

from _cpe_random import random_instance
from duelbench.cpe import exact
from duelbench.cpe.borda import _table, expected_reduced_reward, sampler_probabilities
from duelbench.cpe.exhaustive import payoff_matrix
from duelbench.cpe.fptas import condorcet_fptas
from duelbench.cpe.hardness import borda_weights
from duelbench.cpe.matching import MatchingCounter, enumerate_matchings

RTOL = 1e-12


def test_matvec_and_dot_are_blas_up_to_rounding_and_the_same_bits_uncompiled():
    rng = np.random.default_rng(0)
    for rows, n in ((1, 1), (5, 3), (12, 12), (40, 200)):
        A, x = rng.normal(size=(rows, n)), rng.normal(size=n)
        got = exact.matvec(A, x)
        assert np.all(np.abs(got - A @ x) <= RTOL * np.abs(A) @ np.abs(x))
        assert np.array_equal(got, exact.matvec.py_func(A, x))
        assert exact.dot(A[0], x) == got[0] == exact.dot.py_func(A[0], x)
    assert exact.matvec(np.zeros((3, 0)), np.zeros(0)).tolist() == [0.0, 0.0, 0.0]


def test_indicator_products_are_the_sums_of_the_selected_entries():
    """``χ_Xᵀ A χ_Y`` against the BLAS product of the indicator matrices and the exact sum."""
    rng = np.random.default_rng(1)
    A = rng.uniform(size=(9, 9))
    X = np.array([[0, 3, 6], [1, 4, 8], [2, 5, 7]], dtype=np.int64)
    Y = np.array([[0, 4, 8], [2, 3, 7]], dtype=np.int64)
    chi_x, chi_y = np.zeros((3, 9)), np.zeros((2, 9))
    chi_x[np.arange(3)[:, None], X] = 1.0
    chi_y[np.arange(2)[:, None], Y] = 1.0
    got = exact.indicator_products(A, X, Y)
    np.testing.assert_allclose(got, chi_x @ A @ chi_y.T, rtol=RTOL)
    np.testing.assert_allclose(got, [[np.sum(A[np.ix_(a, b)]) for b in Y] for a in X], rtol=RTOL)
    assert np.array_equal(got, exact.indicator_products.py_func(A, X, Y))


@pytest.mark.parametrize("seed", range(4))
def test_nnls_solves_what_scipy_solves(seed):
    """Random problems, over- and under-determined, some with dependent columns: the fitted
    ``A x`` (unique, unlike ``x`` when columns are dependent) and the residual agree with scipy's;
    ``x ≥ 0``."""
    rng = np.random.default_rng(seed)
    for _ in range(200):
        M, N = (int(v) for v in rng.integers(1, 16, 2))
        A, b = rng.normal(size=(M, N)), rng.normal(size=M)
        if N > 2 and rng.random() < 0.5:
            A[:, -1] = A[:, 0] - 2.0 * A[:, 1]
        x = exact.nnls(A, b, maxiter=50 * N)
        ref, rnorm = scipy_nnls(A, b, maxiter=50 * N)
        assert np.all(x >= 0.0)
        np.testing.assert_allclose(A @ x, A @ ref, rtol=1e-10, atol=1e-10 * max(1.0, np.abs(b).max()))
        assert np.linalg.norm(A @ x - b) <= rnorm * (1 + 1e-10) + 1e-12
        if np.linalg.matrix_rank(A) == N:  # a unique solution
            np.testing.assert_allclose(x, ref, rtol=1e-9, atol=1e-10)


def test_nnls_small_cases_and_refusals():
    assert exact.nnls(np.array([[1.0, 0], [1, 0], [0, 1]]), np.array([2.0, 1, 1])) == pytest.approx([1.5, 1.0])
    assert exact.nnls(np.array([[1.0, 0], [1, 0], [0, 1]]), np.array([-1.0, -1, -1])).tolist() == [0.0, 0.0]
    assert exact.nnls(np.zeros((2, 3)), np.ones(2)).tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="finite"):
        exact.nnls(np.array([[np.nan, 1.0]]), np.array([1.0]))
    with pytest.raises(ValueError, match="shape"):
        exact.nnls(np.ones((2, 2)), np.ones(3))
    with pytest.raises(RuntimeError, match="maxiter"):
        exact.nnls(np.eye(3), np.ones(3), maxiter=1)


def test_nnls_is_the_same_bits_uncompiled():
    rng = np.random.default_rng(5)
    A, b = rng.normal(size=(7, 10)), rng.normal(size=7)
    x, it = exact._nnls(A, b, 500)
    x_py, it_py = exact._nnls.py_func(A, b, 500)
    assert it == it_py > 0 and np.array_equal(x, x_py)


@pytest.mark.parametrize("n,ell", [(3, 2), (4, 3), (5, 3)])
def test_cpe_values_agree_with_the_blas_products_they_replace(n, ell):
    """``f`` (Eq. 1), the payoff matrix of the exhaustive oracle, the Borda weights (Eq. 4), the
    expected reduced rewards and the FPTAS (Algorithms 6–7) against their former BLAS forms."""
    rng = np.random.default_rng(10 * n + ell)
    inst = random_instance(n, ell, rng)
    Q = np.where(inst.comparable_mask, rng.uniform(size=inst.P.shape), 0.0)
    np.fill_diagonal(Q, 0.5)
    M = enumerate_matchings(inst)
    for a, b in ((0, 0), (0, len(M) - 1), (1, 2)):
        blas = float(inst.indicator(M[a]) @ Q @ inst.indicator(M[b])) / inst.ell
        assert inst.f(M[a], M[b], Q) == pytest.approx(blas, rel=RTOL)
    chi = np.zeros((len(M), inst.m))
    chi[np.arange(len(M))[:, None], M] = 1.0
    np.testing.assert_allclose(payoff_matrix(inst, M, M[::-1], Q), chi @ Q @ chi[::-1].T / inst.ell, rtol=RTOL)
    np.testing.assert_allclose(borda_weights(inst), inst.P @ MatchingCounter(inst).marginals(), rtol=RTOL)
    p = sampler_probabilities(inst, "biased", 0.2)
    blas = p @ inst.P[np.arange(inst.m)[None, :], _table(inst)[:, inst.position]]
    np.testing.assert_allclose(expected_reduced_reward(inst, "biased", 0.2), blas, rtol=RTOL)
    for ws in (False, True):
        r = condorcet_fptas(inst, (), (), (), (), Q, outer=6, fw=30, step="diameter", warm_start=ws)
        assert r.value == pytest.approx(_blas_fptas_value(inst, Q, 6, 30, r.eta, ws), rel=RTOL)


def _blas_fptas_value(inst, Q, outer, fw, eta, warm_start):
    """Algorithm 6 with Algorithm 7 on the whole matching polytope, as it was written with BLAS."""
    from duelbench.cpe.fptas import _LinearMinimiser

    lmo_x, lmo_y = _LinearMinimiser(inst, (), ()), _LinearMinimiser(inst, (), ())
    chi0 = inst.indicator(lmo_x(np.zeros(inst.m)))
    QT = np.ascontiguousarray(Q.T) / inst.ell
    x, best = chi0.copy(), -np.inf
    for t in range(1, outer + 2):
        w = QT @ x
        y = lmo_y(w)
        best = max(best, float(w[y].sum()))
        if t == outer + 1:
            break
        z = x + eta * Q[:, y].sum(axis=1) / inst.ell
        x = (x if warm_start else chi0).copy()
        for s in range(1, fw + 1):
            grad = x - z
            v = lmo_x(grad)
            if warm_start:
                d = -x
                d[v] += 1.0
                dd = float(d @ d)
                gamma = 0.0 if dd == 0.0 else min(1.0, max(0.0, -float(grad @ d) / dd))
            else:
                gamma = 2.0 / (s + 1)
            x *= 1.0 - gamma
            x[v] += gamma
    return best
