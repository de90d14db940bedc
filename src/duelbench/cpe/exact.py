"""Processor-independent linear algebra of the CPE algorithms (Chen, Du, Huang & Zhao, ICML 2020).

Every value the package writes must come out bit-identical on any x86-64 processor, so that an
archived sample recomputed on another machine gives the same bytes.  BLAS and LAPACK do not
allow this: OpenBLAS picks its kernels for the processor it runs on (SSE2, AVX2, AVX-512, with or
without fused multiply-add), and with them the order in which a matrix-vector product adds its
terms and the rounding of every product, so ``np.dot``, the matrix product of numpy and numpy's
and scipy's linear algebra built on them (:func:`scipy.optimize.nnls` among them) differ between
two machines in the last bits.  In the sub-gradient and Frank–Wolfe loops of Algorithms 6–7
(L1082–L1103) those bits feed the next iterate and the next matching oracle, so they can end in
a different written value.

The products the CPE algorithms need are computed here instead, in loops compiled by numba
without ``fastmath``: each product and each addition is one IEEE-754 operation, in the order the
loop states (LLVM may not reorder floating-point additions or contract a product and a sum into
one fused operation unless it is told it may), so the result is the same on every processor.
Every function runs unchanged under ``NUMBA_DISABLE_JIT=1``, with the same operations in the same
order.  The sums are plain sums from ``0.0`` in the order of the index, whose rounding error is of
the order of BLAS's own (at most about ``n·u`` times the sum of the absolute terms, with ``n``
terms and ``u = 2**-53``): only the last bits of the values change against BLAS's.

* :func:`matvec` — ``A x`` row by row, each row's sum in column order;
* :func:`dot` — ``a·b`` in index order;
* :func:`indicator_products` — ``χ_Xᵀ A χ_Y`` for every pair of index sets (the payoff of two
  matchings, Eq. 1, L70–L72), sums of selected entries only;
* :func:`nnls` — non-negative least squares by Lawson & Hanson's active-set method with a
  Householder QR of the passive columns in plain loops (numba's own linear algebra calls LAPACK).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from duelbench.provenance.compiled_cache import install as _install_compiled_cache

from .borda_kernel import row_weights

_install_compiled_cache()  # closure-keyed cache folders before the decorators below run

__all__ = ["matvec", "dot", "indicator_products", "nnls", "NNLS_INDEPENDENCE"]

#: Lawson & Hanson's test of a column entering the passive set (``FACTOR`` of their NNLS): its
#: part orthogonal to the passive columns, scaled by this, must still change the norm of its part
#: inside their span; a nearly dependent column is rejected instead.
NNLS_INDEPENDENCE = 0.01
#: Codes of :func:`_nnls` in place of its count of iterations.
_MAXITER = -1
_NOT_FINITE = -2


@numba.njit(cache=True)
def matvec(A, x):
    """``A x``: ``out[i] = Σ_j A[i, j]·x[j]``, summed from ``0.0`` in column order (compiled).

    Parameters
    ----------
    A : float64 array of shape (r, n)
    x : float64 array of shape (n,)

    Returns
    -------
    ndarray of shape (r,)
    """
    rows, n = A.shape
    out = np.empty(rows)
    for i in range(rows):
        s = 0.0
        for j in range(n):
            s += A[i, j] * x[j]
        out[i] = s
    return out


@numba.njit(cache=True)
def dot(a, b):
    """``Σ_i a[i]·b[i]``, summed from ``0.0`` in index order (compiled)."""
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


@numba.njit(cache=True)
def indicator_products(A, X, Y):
    """``G[a, b] = χ_{X_a}ᵀ A χ_{Y_b} = Σ_{i ∈ X_a} Σ_{j ∈ Y_b} A[i, j]`` (compiled).

    As the BLAS product ``(χ_X A) χ_Yᵀ`` it replaces, in two steps: ``H[a, j] = Σ_k A[X[a, k], j]``
    (the rows of ``A`` selected by ``X_a``, added in the order of ``X_a``), then
    ``G[a, b] = Σ_k H[a, Y[b, k]]`` in the order of ``Y_b``; both are
    :func:`~duelbench.cpe.borda_kernel.row_weights` sums.  Only selected entries are added, no
    products by the zeros of the indicator vectors.

    Parameters
    ----------
    A : float64 array of shape (m, m)
    X, Y : int64 arrays of shape (|X|, ℓ) and (|Y|, ℓ)
        One index set per row (distinct indices: the edges of a matching).

    Returns
    -------
    ndarray of shape (|X|, |Y|)
    """
    m = A.shape[1]
    AT = np.ascontiguousarray(A.T)
    H = np.empty((X.shape[0], m))
    column = np.empty(X.shape[0])
    for j in range(m):
        row_weights(X, AT[j], column)
        H[:, j] = column
    G = np.empty((X.shape[0], Y.shape[0]))
    for a in range(X.shape[0]):
        row_weights(Y, H[a], G[a])
    return G


@numba.njit(cache=True)
def _passive_solve(A, b, passive, p, z):
    """``z[:p] = argmin ‖Σ_k A[:, passive[k]]·z_k − b‖`` by Householder QR (compiled).

    The columns ``passive[:p]`` of ``A`` are reduced to ``R`` in their order (one reflection
    ``I − 2vvᵀ/vᵀv`` per column, applied to the later columns and to ``b``), then ``R z = Qᵀb`` is
    solved backwards.  Returns ``(unorm, diag)`` of the last column: the norm of its part inside
    the span of the others (``‖R[:p−1, p−1]‖``) and of its part orthogonal to them
    (``|R[p−1, p−1]|``), Lawson & Hanson's test of near dependence.
    """
    M = A.shape[0]
    W = np.empty((M, p))
    for k in range(p):
        for i in range(M):
            W[i, k] = A[i, passive[k]]
    c = b.copy()
    for k in range(p):
        s = 0.0
        for i in range(k, M):
            s += W[i, k] * W[i, k]
        s = math.sqrt(s)
        if s == 0.0:
            continue
        alpha = -s if W[k, k] >= 0.0 else s
        v0 = W[k, k] - alpha
        vtv = v0 * v0
        for i in range(k + 1, M):
            vtv += W[i, k] * W[i, k]
        for j in range(k + 1, p):
            t = v0 * W[k, j]
            for i in range(k + 1, M):
                t += W[i, k] * W[i, j]
            t = 2.0 * t / vtv
            W[k, j] -= t * v0
            for i in range(k + 1, M):
                W[i, j] -= t * W[i, k]
        t = v0 * c[k]
        for i in range(k + 1, M):
            t += W[i, k] * c[i]
        t = 2.0 * t / vtv
        c[k] -= t * v0
        for i in range(k + 1, M):
            c[i] -= t * W[i, k]
        W[k, k] = alpha
    unorm = 0.0
    diag = 0.0
    if p > 0:
        for i in range(p - 1):
            unorm += W[i, p - 1] * W[i, p - 1]
        unorm = math.sqrt(unorm)
        diag = abs(W[p - 1, p - 1])
    for k in range(p - 1, -1, -1):
        s = c[k]
        for j in range(k + 1, p):
            s -= W[k, j] * z[j]
        z[k] = s / W[k, k] if W[k, k] != 0.0 else 0.0
    return unorm, diag


@numba.njit(cache=True)
def _nnls(A, b, maxiter):
    """Lawson & Hanson's NNLS (Solving Least Squares Problems, 1974, Ch. 23): ``(x, iterations)``,
    ``iterations`` :data:`_MAXITER` when the inner loop ran ``maxiter`` times, :data:`_NOT_FINITE`
    for a non-finite entry of ``A`` or ``b`` (compiled)."""
    M, N = A.shape
    x = np.zeros(N)
    for i in range(M):
        if not math.isfinite(b[i]):
            return x, _NOT_FINITE
        for j in range(N):
            if not math.isfinite(A[i, j]):
                return x, _NOT_FINITE
    z = np.zeros(N)
    w = np.zeros(N)
    r = np.empty(M)
    passive = np.empty(N, np.int64)
    in_passive = np.zeros(N, np.bool_)
    p = 0
    iterations = 0
    while True:
        # the dual vector w = Aᵀ(b − A x) on the active set (the negative gradient)
        for i in range(M):
            s = b[i]
            for j in range(N):
                s -= A[i, j] * x[j]
            r[i] = s
        for j in range(N):
            s = 0.0
            if not in_passive[j]:
                for i in range(M):
                    s += A[i, j] * r[i]
            w[j] = s
        # the entering column: the largest positive w_j whose column is independent enough of the
        # passive ones and whose least-squares coefficient is positive (else w_j = 0, next one)
        entered = -1
        while p < M and p < N:
            t = -1
            wmax = 0.0
            for j in range(N):
                if not in_passive[j] and w[j] > wmax:
                    wmax = w[j]
                    t = j
            if t < 0:
                break
            passive[p] = t
            unorm, diag = _passive_solve(A, b, passive, p + 1, z)
            if (unorm + NNLS_INDEPENDENCE * diag) - unorm > 0.0 and z[p] > 0.0:
                entered = t
                break
            w[t] = 0.0
        if entered < 0:
            return x, iterations
        in_passive[entered] = True
        p += 1
        # inner loop: step towards the unconstrained solution z on the passive set until it is
        # feasible, moving the coefficients that reach 0 back to the active set
        while True:
            iterations += 1
            if iterations > maxiter:
                return x, _MAXITER
            alpha = 2.0
            leaving = -1
            for k in range(p):
                if z[k] <= 0.0:
                    j = passive[k]
                    t = -x[j] / (z[k] - x[j])
                    if alpha > t:
                        alpha = t
                        leaving = k
            if leaving < 0:
                for k in range(p):
                    x[passive[k]] = z[k]
                break
            for k in range(p):
                j = passive[k]
                x[j] += alpha * (z[k] - x[j])
            kept = 0
            for k in range(p):
                j = passive[k]
                if k == leaving or x[j] <= 0.0:
                    x[j] = 0.0
                    in_passive[j] = False
                else:
                    passive[kept] = j
                    kept += 1
            p = kept
            _passive_solve(A, b, passive, p, z)


def nnls(A, b, maxiter: int | None = None) -> np.ndarray:
    """``argmin_{x ≥ 0} ‖A x − b‖₂``, as :func:`scipy.optimize.nnls`, in processor-independent
    arithmetic.

    Lawson & Hanson's active-set method (the algorithm of scipy's solver): a column enters the
    passive set when its dual coefficient ``(Aᵀ(b − A x))_j`` is the largest positive one, it is
    independent enough of the passive columns (:data:`NNLS_INDEPENDENCE`) and its least-squares
    coefficient is positive; the unconstrained least squares on the passive columns is solved by
    a Householder QR computed afresh in plain loops, and coefficients that reach 0 on the way to
    it leave the set.

    Parameters
    ----------
    A : array_like of shape (M, N)
    b : array_like of shape (M,)
    maxiter : int, optional
        Most inner iterations (``3N`` by default, as scipy's).

    Returns
    -------
    ndarray of shape (N,)
        The solution; ``RuntimeError`` when ``maxiter`` iterations do not reach it.
    """
    A = np.ascontiguousarray(A, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64).ravel()
    if A.ndim != 2 or b.shape[0] != A.shape[0]:
        raise ValueError(f"nnls needs A of shape (M, N) and b of length M, got {A.shape} and {b.shape}")
    maxiter = 3 * A.shape[1] if maxiter is None else int(maxiter)
    x, iterations = _nnls(A, b, maxiter)
    if iterations == _NOT_FINITE:
        raise ValueError("nnls needs finite A and b")
    if iterations == _MAXITER:
        raise RuntimeError(f"nnls: no solution within maxiter={maxiter} iterations")
    return x
