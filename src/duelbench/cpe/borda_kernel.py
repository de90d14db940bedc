"""Compiled round loop of CLUCB-Borda-PAC (Algorithm 1) and CLUCB-Borda-Exact (Algorithm 5) of
Chen, Du, Huang & Zhao (ICML 2020); the public interface, the options and the decisions are in
:mod:`duelbench.cpe.borda`.

The maximisation oracle ``MWMC(·)`` (Algorithm 1 line 5 and 14, L132 and L141) is an argmax of
``w·χ_M`` over the rows of the enumerated matchings table (``matching.enumerate_matchings``,
lexicographic rows): an exact maximum-weight matching oracle for the instances whose ``ℳ`` is
enumerated.  Every function runs unchanged under ``NUMBA_DISABLE_JIT=1`` (the pure-Python path),
with the same arithmetic in the same order, so both paths give identical results.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from duelbench.provenance.compiled_cache import install as _install_compiled_cache

_install_compiled_cache()  # closure-keyed cache folders before the decorators below run

#: Weights within this distance of the maximum are ties of the oracle (lowest row wins), and
#: Algorithm 5's exact test ``w̃(M̃_t) = w̃(M_t)`` (L763) is ``w̃(M̃_t) − w̃(M_t) ≤ TIE_TOL``.
TIE_TOL = 1e-12

# modes of :func:`run`
MODE_PAC = 0  # Algorithm 1
MODE_V0 = 1  # Algorithm 5 as printed
MODE_V1 = 2  # Algorithm 5, break when max radius on the symmetric difference ≤ ε_q/4
MODE_V2 = 3  # CLUCB on the reduced arms: no ε terms, no epochs

# status codes returned by :func:`run`
STATUS_DONE = 0
STATUS_CAPPED = 1


@numba.njit(cache=True)
def row_weights(table, w, out):
    """``out[r] = w(M_r)``, summed in position order from 0.0."""
    for r in range(table.shape[0]):
        s = 0.0
        for j in range(table.shape[1]):
            s += w[table[r, j]]
        out[r] = s


@numba.njit(cache=True)
def oracle(table, w, weights):
    """``MWMC(w)`` over the rows of ``table``: the lowest row whose weight is within
    :data:`TIE_TOL` of the maximum (weights of all rows left in ``weights``)."""
    row_weights(table, w, weights)
    best = weights[0]
    for r in range(1, table.shape[0]):
        if weights[r] > best:
            best = weights[r]
    for r in range(table.shape[0]):
        if weights[r] >= best - TIE_TOL:
            return r
    return 0


@numba.njit(cache=True)
def draw_row(u, n_rows, biased, eta, bad_row):
    """The row of ``M′`` drawn with one uniform ``u``: ``𝒮(η)`` of Definition 1 (L109–L117).

    Exact sampler: row ``⌊u·|ℳ|⌋``.  Biased sampler ``(1 − η)·Uniform + η·δ_{M_bad}``:
    ``bad_row`` when ``u < η``, else row ``⌊(u − η)/(1 − η)·|ℳ|⌋``.
    """
    if biased:
        if u < eta:
            return bad_row
        v = (u - eta) / (1.0 - eta)
    else:
        v = u
    r = int(v * n_rows)
    if r > n_rows - 1:
        r = n_rows - 1
    return r


@numba.njit(cache=True)
def run(table, position, P, n_radius, delta, epsilon, mode, biased, bad_row, self_half, max_samples,
        rng, record):
    """One run of Algorithm 1 (``mode`` :data:`MODE_PAC`) or of Algorithm 5 (other modes).

    Parameters
    ----------
    table : int64 (|ℳ|, ℓ)
        The enumerated maximum matchings (edge indices in position order).
    position : int64 (m,)
        ``s(e)`` of every edge.
    P : float64 (m, m)
        The preference matrix.
    n_radius : float
        The count inside the radius ``ln(4·n_radius·t³/δ)`` (``K`` as printed, or ``m``).
    delta, epsilon : float
        Confidence and, for Algorithm 1, accuracy (ignored by Algorithm 5).
    mode : int
        One of the ``MODE_*`` constants.
    biased : bool
        Sampler ``(1 − η)·Uniform + η·δ_{M_bad}`` with ``η = ε/8`` (``ε_q/8``), else uniform.
    bad_row : int
        Row of ``M_bad`` in ``table``.
    self_half : bool
        A self-duel records ``X = 1/2`` instead of a Bernoulli(1/2) outcome.
    max_samples : int
        Sample cap (−1: none).
    rng : numpy.random.Generator
        Two ``rng.random()`` per sampled round: ``u₁`` draws ``M′``, ``u₂`` the duel
        (``X = 1`` iff ``u₂ < p(z_t, e′)``; also drawn for a self-duel).
    record : bool
        Keep ``(z_t, e′, 2X)`` of every sampled round.

    Returns
    -------
    tuple
        ``(status, out_row, last_row, samples, real_duels, self_duels, epochs,
        per_epoch[:epochs], trace[:samples])``.
    """
    n_rows, ell = table.shape
    m = position.shape[0]
    T = np.zeros(m, dtype=np.int64)
    S = np.zeros(m, dtype=np.float64)
    wbar = np.zeros(m, dtype=np.float64)
    wtil = np.zeros(m, dtype=np.float64)
    c = np.zeros(m, dtype=np.float64)
    in_t = np.zeros(m, dtype=np.bool_)
    in_til = np.zeros(m, dtype=np.bool_)
    weights = np.zeros(n_rows, dtype=np.float64)
    per_epoch = np.zeros(16, dtype=np.int64)
    trace = np.zeros((1024 if record else 0, 3), dtype=np.int64)
    samples = 0
    real = 0
    selfd = 0
    q = 1
    while True:
        if mode == MODE_PAC:
            eps = epsilon
            dq = delta
        elif mode == MODE_V2:
            eps = 0.0
            dq = delta
        else:
            eps = 0.5 ** q  # ε_q = 2^−q (L748)
            dq = delta / (2.0 * q * q)  # δ_q = δ/(2q²) (L749)
        eta = eps / 8.0  # η = ε/8 (L129, L750)
        if q > per_epoch.shape[0]:
            grown = np.zeros(2 * per_epoch.shape[0], dtype=np.int64)
            grown[:per_epoch.shape[0]] = per_epoch
            per_epoch = grown
        for e in range(m):  # statistics reset at every epoch (L751)
            T[e] = 0
            S[e] = 0.0
        t = 1
        while True:
            for e in range(m):
                wbar[e] = S[e] / T[e] if T[e] > 0 else 0.0  # w̄ := 0 when unsampled (L139)
            mt = oracle(table, wbar, weights)
            tf = float(t)
            level = math.log(4.0 * n_radius * tf * tf * tf / dq)
            for e in range(m):
                c[e] = math.sqrt(level / (2.0 * T[e])) if T[e] > 0 else 1.0  # x/0 := 1 (L133)
                in_t[e] = False
                in_til[e] = False
            for j in range(ell):
                in_t[table[mt, j]] = True
            for e in range(m):
                if in_t[e]:
                    wtil[e] = wbar[e] - c[e] - 0.25 * eps
                else:
                    wtil[e] = wbar[e] + c[e] + 0.25 * eps
            mtil = oracle(table, wtil, weights)
            for j in range(ell):
                in_til[table[mtil, j]] = True
            diff = weights[mtil] - weights[mt]
            z = -1
            zc = 0.0
            for e in range(m):  # z_t = argmax c_t over M̃_t Δ M_t, lowest index on ties (L146)
                if in_t[e] != in_til[e] and (z < 0 or c[e] > zc):
                    z = e
                    zc = c[e]
            if mode == MODE_PAC:
                if diff <= ell * eps:  # L142
                    return (STATUS_DONE, mt, mt, samples, real, selfd, q, per_epoch[:q].copy(),
                            trace[:samples].copy())
            else:
                if diff <= TIE_TOL:  # L763
                    return (STATUS_DONE, mt, mt, samples, real, selfd, q, per_epoch[:q].copy(),
                            trace[:samples].copy())
                if mode == MODE_V0 and diff <= ell * eps:  # L767
                    break
                if mode == MODE_V1 and zc <= 0.25 * eps:
                    break
            if samples == max_samples:
                return (STATUS_CAPPED, -1, mt, samples, real, selfd, q, per_epoch[:q].copy(),
                        trace[:samples].copy())
            u1 = rng.random()
            u2 = rng.random()
            row = draw_row(u1, n_rows, biased, eta, bad_row)
            opp = table[row, position[z]]  # e′ = e(M′, s(z_t)) (L148)
            if opp == z:
                selfd += 1
                x = 0.5 if self_half else (1.0 if u2 < P[z, z] else 0.0)
            else:
                real += 1
                x = 1.0 if u2 < P[z, opp] else 0.0
            if record:
                if samples == trace.shape[0]:
                    grown_t = np.zeros((2 * trace.shape[0], 3), dtype=np.int64)
                    grown_t[:samples] = trace
                    trace = grown_t
                trace[samples, 0] = z
                trace[samples, 1] = opp
                trace[samples, 2] = int(2.0 * x)
            T[z] += 1
            S[z] += x
            samples += 1
            per_epoch[q - 1] += 1
            t += 1
        q += 1
