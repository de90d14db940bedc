"""ECW-RMED's exploration target ``R^{E*}`` and constant ``C^{E*}`` (Komiyama et al. 2016).

Paper 000 (Komiyama, Honda & Nakagawa, ICML 2016), Section 4.2, lines 202–232, and the proof
of Theorem 5 in Appendix E (L597ff).  Indices are 0-based; ``d(x) = d_KL(x, 1/2)`` is
:func:`duelbench.stats.kl.kl_to_half`; ``Ô, Ĥ, L̂, L̂^(1), C_cop, r̂`` of a matrix ν are the
kernels of :mod:`duelbench.stats.copeland`.

The set (L204), for a Copeland winner ``i1 ∈ C_cop(ν)``::

    R^E_{i1}(ν) = { q ∈ ∏ [0, 1/d(ν_ij)] :
        (4)  q_{i1 j} = 1/d(ν_{i1 j})                           for all j ∈ Ĥ_{i1},
        (5)  Σ_{j ∈ O} q_{j i2} d(ν_{j i2}) ≥ 1   for all i2 ≠ i1 and all O ⊆ Ô_{i2} \\ {i1}
                                                 with |O| = L̂_{i2} − L̂_{i1} + 1 }

(``q_{j,l_2}`` in the printed (5) is an extraction error for ``q_{j,i2}``),
``C^{E*}_{i1} = min_{q ∈ R^E} Σ r̂_ij q_ij`` (L208) and ``R^{E*}`` its minimisers (L212, where
the printed "= C*_{i1}" is a typo for ``C^{E*}_{i1}`` of L208).  Theorem 4 (L216–L218): ECW-RMED
has regret ``min_{i1} C^{E*}_{i1}(μ) log T + o(log T)``.

Closed form (Section 4.2.1, L220–L232; proof in Appendix E, L597ff)
------------------------------------------------------------------
The constraints (5) for different ``i2`` involve disjoint pairs ``{j, i2}``, ``j ∈ Ô_{i2}``
(a pair {x, y} is in row x only if y beats x), and (4) fixes the pairs ``{i1, j}``, so ::

    C^{E*}_{i1} = Σ_{j ∈ Ĥ_{i1}} r̂_{i1 j} / d_{i1 j}  +  Σ_{i2 ≠ i1} V_{i2}(i1).

For one row ``i2``: ``𝒪 = Ô_{i2} \\ {i1}``, ``need = L̂_{i2} − L̂_{i1} + 1``, ``k = |𝒪| − need``,
costs ``c_j = r̂_{j i2} / d_{j i2}`` and ``e_j = q_{j i2} d_{j i2}``; LP (6) (L224, with the
printed ``|𝒪| = |𝒪| − k`` read as ``|O| = |𝒪| − k``) is
``min Σ c_j e_j`` s.t. ``Σ_{j ∈ O} e_j ≥ 1`` for every ``O ⊆ 𝒪`` with ``|O| = need``.

* ``k < 0``: no constraint, ``V = 0`` and the row's pairs get ``q = 0``.
* ``k ≥ 0`` (Theorem 5, L228–L232): with ``c_σ1 ≤ … ≤ c_σ|𝒪|``,
  ``V = min_{h ∈ {k+1, …, |𝒪|}} (c_σ1 + … + c_σh) / (h − k)``, attained by
  ``e_σ1 = … = e_σh = 1/(h − k)`` and 0 elsewhere.  The paper states the theorem for
  ``k > 0`` and calls ``k = 0`` trivial; the same formula covers ``k = 0``: the only subset
  of size ``|𝒪| − k`` in (6) (L224) is then ``𝒪`` itself, and the single constraint
  ``Σ_{j ∈ 𝒪} e_j ≥ 1`` costs ``min_j c_j``, not ``Σ_j c_j`` (``h = 1``: the running mean of
  sorted costs is non-decreasing).
  Since ``|𝒪| ≥ L̂_{i2} − 1`` one always has ``k ≥ L̂^(1) − 2``, so rows with ``k ≥ 0`` exist
  only when ``L̂^(1) ≥ 1``; with a Condorcet winner all of (5) is vacuous and
  ``C^{E*} = Σ_j (L̂_j / (2(K − 1))) / d_{1j}`` (derived: only (4) remains, and
  ``r̂_{1j} = L̂_j / (2(K − 1))`` when ``L̂_1 = 0``, L71, L101).

Decisions
---------
* Ties of the optimisation ("ties are broken arbitrarily", L170): costs are sorted by
  (cost, arm index); among minimising ``h`` the smallest is taken.  The Python wrappers and
  ECW-RMED use the same rule, so the target is a function of ν alone.
* ``d = 0`` guards (the box ``[0, 1/d]`` of L204 and the costs ``c_j = r̂/d`` of L222 are
  undefined at ``d = 0``): a pair with ``r̂ = 0`` (both arms Copeland winners) costs 0
  whatever its divergence; a pair with ``r̂ > 0`` and ``d = 0`` costs ``+inf`` and its
  target ``q = 1/d`` is ``+inf``.  ``d = 0`` needs ``ν = 1/2`` exactly, which puts the pair
  in neither ``Ô`` nor ``Ĥ``, so it only arises through floating-point underflow of ``d``.
* Exact ties ``ν_ij == 1/2`` (allowed in data, e.g. ArXiv) count neither as wins nor losses,
  as in :mod:`duelbench.stats.copeland`; such pairs are in no constraint and get ``q = 0``.
* ``d_ij`` is computed once per unordered pair, from the entry ``ν_ab`` with ``a < b``
  (:func:`pair_divergence`), so ``D`` is exactly symmetric.

Kernels and caching
-------------------
Everything is a ``numba.njit(cache=True)`` kernel on a plain (K, K) float64 matrix ν (a
:class:`~duelbench.problems.matrix.PreferenceMatrix`'s values or ECW-RMED's empirical ``μ̂``)
plus its divergence matrix ``D``, losses ``L`` and ``L1 = L̂^(1)``.  The per-row quantities
live in a *row cache* (:func:`target_cache_new`); :func:`target_refresh` recomputes the rows
flagged stale, and :func:`ecw_values_from_rows`, :func:`ecw_support_from_rows` assemble the
constants and the optimal point.  The whole-matrix functions (:func:`ecw_values_into`,
:func:`ecw_solution_into`) flag every row and then assemble, so ECW-RMED — which flags only the
rows whose inputs changed — computes exactly the same numbers.  A refreshed row whose superior
set is unchanged keeps its previous order and is re-sorted (in O(K) when nearly sorted); the
sort is by a total order, so the result does not depend on the previous order.  Kernels take
2-D caches plus a row index rather than row views, and the multi-row loops live inside the
kernels: in numba every array (or tuple of arrays) handed from call to call costs an atomic
reference-count update, which dominated the per-step cost of a per-row API.

The membership test of Algorithm 1 line 8, eq. (3) (L160), is provided in its covering-only
reading (decision 1 of :mod:`duelbench.algorithms.ecw_rmed`): ``q ∈ R^E_{i1}`` is tested on the
covering constraints only, with (4) read as ``q_{i1 j} d_{i1 j} ≥ 1`` and without the box
``q ≤ 1/d``.  The constraints are homogeneous, so with the evidence ``E_ij = N_ij d_ij`` the
test "``N/log t ∈ R^E``" is ``covering margin ≥ log t`` (:func:`cover_refresh`,
:func:`cover_margins`, :func:`covering_margin`).

Python-level API: :func:`ecw_constants`, :func:`ecw_constant`, :func:`ecw_target`,
:func:`in_re_covering` and the independent brute-force LP :func:`ecw_lp_bruteforce`.
"""

from __future__ import annotations

import itertools
import math

import numba
import numpy as np

from duelbench.problems.matrix import square_values
from duelbench.stats.copeland import losses_into, min_losses, pair_regret, winner_mask_into
from duelbench.stats.kl import kl_to_half

INF = math.inf

# --------------------------------------------------------------------------- elementary kernels


@numba.njit(cache=True)
def pair_divergence(nu, i, j):
    """``d_ij = d(ν_ab)`` with ``a = min(i, j)``, ``b = max(i, j)`` (exactly symmetric in i, j)."""
    if i < j:
        return kl_to_half(nu[i, j])
    return kl_to_half(nu[j, i])


@numba.njit(cache=True)
def divergences_into(nu, D):
    """Fill ``D[i, j] = d_ij`` (:func:`pair_divergence`), 0 on the diagonal."""
    K = nu.shape[0]
    for i in range(K):
        D[i, i] = 0.0
        for j in range(i + 1, K):
            d = pair_divergence(nu, i, j)
            D[i, j] = d
            D[j, i] = d


@numba.njit(cache=True)
def pair_cost(L, L1, D, i, j):
    """Regret per unit of information ``r̂_ij / d_ij``, with the guards of the module docstring."""
    r = pair_regret(L, L1, i, j)
    if r == 0.0:
        return 0.0
    d = D[i, j]
    if d > 0.0:
        return r / d
    return INF


@numba.njit(cache=True)
def inverse_divergence(D, i, j):
    """``1 / d_ij`` (``+inf`` if ``d_ij = 0``)."""
    d = D[i, j]
    if d > 0.0:
        return 1.0 / d
    return INF


@numba.njit(cache=True)
def sort_row(keys, orders, r, n):
    """Sort ``orders[r, 0:n]`` in place by ``(keys[r, j], j)`` (insertion sort).

    The result is the same whatever the input order (a total order on distinct indices), and
    insertion sort is fast on the short rows sorted here, in O(n) when the row is already
    nearly sorted (a cached row whose keys changed a little).
    """
    for m in range(1, n):
        x = orders[r, m]
        kx = keys[r, x]
        p = m - 1
        while p >= 0:
            y = orders[r, p]
            ky = keys[r, y]
            if ky > kx or (ky == kx and y > x):
                orders[r, p + 1] = y
                p -= 1
            else:
                break
        orders[r, p + 1] = x


@numba.njit(cache=True)
def theorem5(c, n, k, h_out):
    """LP (6) in closed form (Theorem 5, L228–L232).

    ``c[0:n]`` are the costs in increasing order, ``0 ≤ k < n``.  Returns
    ``V = min_{h ∈ {k+1..n}} (c_0 + … + c_{h−1}) / (h − k)`` and writes the smallest minimising
    ``h`` into ``h_out[0]``; the optimal ``e`` is ``1/(h − k)`` on the first h arms, 0 elsewhere.
    """
    best = INF
    best_h = k + 1
    s = 0.0
    for m in range(n):
        s += c[m]
        h = m + 1
        if h > k:
            v = s / (h - k)
            if v < best:
                best = v
                best_h = h
    h_out[0] = best_h
    return best


@numba.njit(cache=True)
def superiors_into(nu, keys, orders, n_sup, r, values):
    """Row r of a cache: the superiors ``Ô_r`` of ν in ``orders[r, 0:n]``, their keys
    ``keys[r, j] = values[j]`` and ``n_sup[r] = n``, sorted by (key, index); returns n.

    If ``Ô_r`` is still the set listed in ``orders[r, 0:n_sup[r]]`` the cached order is kept and
    only re-sorted (adaptive); otherwise the row is listed afresh in index order.
    """
    K = nu.shape[0]
    n = n_sup[r]
    same = True
    count = 0
    for j in range(K):
        if nu[r, j] < 0.5:
            count += 1
    if count != n:
        same = False
    else:
        for m in range(n):
            if not nu[r, orders[r, m]] < 0.5:
                same = False
                break
    if same:
        for m in range(n):
            j = orders[r, m]
            keys[r, j] = values[j]
    else:
        n = 0
        for j in range(K):
            if nu[r, j] < 0.5:
                keys[r, j] = values[j]
                orders[r, n] = j
                n += 1
        n_sup[r] = n
    sort_row(keys, orders, r, n)
    return n


@numba.njit(cache=True)
def row_lp6(costs, orders, r, n, skip, need, buf, h_out):
    """``V_{i2}(i1)`` for row ``r = i2`` from its sorted superiors, leaving out ``skip`` (= i1 if
    i1 ∈ Ô_{i2}, else −1): ``k = |𝒪| − need``; ``k < 0`` → no constraint (``h_out[0] = 0``,
    ``V = 0``); otherwise :func:`theorem5`."""
    m = 0
    for p in range(n):
        j = orders[r, p]
        if j != skip:
            buf[m] = costs[r, j]
            m += 1
    k = m - need
    if k < 0:
        h_out[0] = 0
        return 0.0
    return theorem5(buf, m, k, h_out)


@numba.njit(cache=True)
def target_cache_new(K):
    """Row cache of the exploration target (one row per i2).

    ``(costs, orders, n_sup, V_no, H_no, V_ex, H_ex, buf, scratch)``: ``costs[i2, j] = c_j`` and
    ``orders[i2, 0:n_sup[i2]]`` the superiors of i2 sorted by cost; ``V_no[i2], H_no[i2]`` =
    value and h of LP (6) for a candidate i1 that is not a superior of i2; ``V_ex[i2, i1],
    H_ex[i2, i1]`` for a candidate i1 that is (left out of 𝒪).  ``H = 0`` means "no constraint".
    """
    costs = np.zeros((K, K), dtype=np.float64)
    orders = np.zeros((K, K), dtype=np.int64)
    n_sup = np.zeros(K, dtype=np.int64)
    V_no = np.zeros(K, dtype=np.float64)
    H_no = np.zeros(K, dtype=np.int64)
    V_ex = np.zeros((K, K), dtype=np.float64)
    H_ex = np.zeros((K, K), dtype=np.int64)
    buf = np.zeros(K, dtype=np.float64)
    scratch = np.zeros(K + 1, dtype=np.int64)
    return costs, orders, n_sup, V_no, H_no, V_ex, H_ex, buf, scratch


@numba.njit(cache=True)
def target_refresh(cache, stale, nu, D, L, L1, winners):
    """Recompute the rows i2 with ``stale[i2]`` (and clear the flags) for the candidates
    ``i1`` with ``winners[i1]``; ν, D, L, L1 must be current."""
    costs, orders, n_sup, V_no, H_no, V_ex, H_ex, buf, scratch = cache
    K = nu.shape[0]
    h = scratch[K:]
    for i2 in range(K):
        if not stale[i2]:
            continue
        stale[i2] = False
        for j in range(K):
            buf[j] = pair_cost(L, L1, D, j, i2) if nu[i2, j] < 0.5 else 0.0
        n = superiors_into(nu, costs, orders, n_sup, i2, buf)
        need = L[i2] - L1 + 1
        V_no[i2] = row_lp6(costs, orders, i2, n, -1, need, buf, h)
        H_no[i2] = h[0]
        for i1 in range(K):
            if winners[i1] and i1 != i2 and nu[i2, i1] < 0.5:
                V_ex[i2, i1] = row_lp6(costs, orders, i2, n, i1, need, buf, h)
                H_ex[i2, i1] = h[0]


@numba.njit(cache=True)
def ecw_values_from_rows(cache, nu, D, L, L1, winners, out):
    """``out[i1] = C^{E*}_{i1} = Σ_{j ∈ Ĥ_{i1}} r̂_{i1 j}/d_{i1 j} + Σ_{i2 ≠ i1} V_{i2}(i1)`` for every
    candidate ``winners[i1]`` (NaN for the others), from fresh rows."""
    V_no = cache[3]
    V_ex = cache[5]
    K = nu.shape[0]
    for i1 in range(K):
        if not winners[i1]:
            out[i1] = np.nan
            continue
        total = 0.0
        for j in range(K):
            if nu[i1, j] > 0.5:
                total += pair_cost(L, L1, D, i1, j)
        for i2 in range(K):
            if i2 != i1:
                if nu[i2, i1] < 0.5:
                    total += V_ex[i2, i1]
                else:
                    total += V_no[i2]
        out[i1] = total


@numba.njit(cache=True)
def ecw_support_from_rows(cache, nu, D, L, L1, i1, E, scale, out_a, out_b, out_q):
    """The pairs of the optimal ``q ∈ R^{E*}_{i1}`` whose normalised target ``e_ab = q_ab d_ab``
    satisfies ``e_ab · scale > E_ab``, as a sparse list ``(out_a[m], out_b[m], out_q[m] = q_ab)``
    for ``m < count`` (returned).  ``e = 1`` on the pairs of (4) and ``1/(h − k)`` on the pairs
    Theorem 5 selects in a row of (5).

    With ``E < 0`` everywhere and ``scale = 1`` this is the whole support (every other pair has
    ``q = 0``).  ECW-RMED passes its evidence ``E = N·d(μ̂)`` and ``scale = ln t``: then the test
    is ``q_ab ln t > N_ab`` multiplied by ``d_ab``, the pairs below their target (line 11), with
    no division per pair.  Capacity K(K − 1)/2 suffices.
    """
    orders = cache[1]
    n_sup = cache[2]
    H_no = cache[4]
    H_ex = cache[6]
    K = nu.shape[0]
    m = 0
    for j in range(K):  # (4): q_{i1 j} = 1/d_{i1 j}, e = 1
        if nu[i1, j] > 0.5 and scale > E[i1, j]:
            out_a[m] = i1
            out_b[m] = j
            out_q[m] = inverse_divergence(D, i1, j)
            m += 1
    for i2 in range(K):  # (5) via Theorem 5: e = 1/(h − k) on the h cheapest superiors
        if i2 == i1:
            continue
        if nu[i2, i1] < 0.5:
            skip = i1
            h = H_ex[i2, i1]
            size = n_sup[i2] - 1
        else:
            skip = -1
            h = H_no[i2]
            size = n_sup[i2]
        if h == 0:
            continue
        k = size - (L[i2] - L1 + 1)
        e = 1.0 / (h - k)
        threshold = e * scale
        taken = 0
        for p in range(n_sup[i2]):
            if taken == h:
                break
            j = orders[i2, p]
            if j == skip:
                continue
            taken += 1
            if threshold > E[j, i2]:
                out_a[m] = j
                out_b[m] = i2
                out_q[m] = e * inverse_divergence(D, j, i2)
                m += 1
    return m


# --------------------------------------------------------------------------- membership test (3)


@numba.njit(cache=True)
def cover_cache_new(K):
    """Row cache of the covering test: ``(keys, orders, n_sup, S_no, S_ex, buf)`` — row i2's
    evidence, its superiors sorted by evidence, and the smallest left-hand side of (5) for a
    candidate that is not / is (``S_ex[i2, i1]``) a superior of i2."""
    keys = np.zeros((K, K), dtype=np.float64)
    orders = np.zeros((K, K), dtype=np.int64)
    n_sup = np.zeros(K, dtype=np.int64)
    S_no = np.zeros(K, dtype=np.float64)
    S_ex = np.zeros((K, K), dtype=np.float64)
    buf = np.zeros(K, dtype=np.float64)
    return keys, orders, n_sup, S_no, S_ex, buf


@numba.njit(cache=True)
def row_cover(keys, orders, r, n, skip, need):
    """Sum of the ``need`` smallest evidences of row r's sorted superiors, leaving out ``skip``:
    the smallest left-hand side of (5) for this row; ``+inf`` if fewer than ``need`` remain
    (no constraint)."""
    s = 0.0
    taken = 0
    for p in range(n):
        if taken == need:
            break
        j = orders[r, p]
        if j == skip:
            continue
        s += keys[r, j]
        taken += 1
    if taken < need:
        return INF
    return s


@numba.njit(cache=True)
def cover_refresh(cache, stale, nu, E, L, L1, winners):
    """Recompute the covering rows i2 with ``stale[i2]`` (and clear the flags) at evidence
    ``E_ij = q_ij d_ij`` (e.g. ``N_ij d_ij``) for the candidates ``winners[i1]``."""
    keys, orders, n_sup, S_no, S_ex, buf = cache
    K = nu.shape[0]
    for i2 in range(K):
        if not stale[i2]:
            continue
        stale[i2] = False
        n = superiors_into(nu, keys, orders, n_sup, i2, E[i2])
        need = L[i2] - L1 + 1
        S_no[i2] = row_cover(keys, orders, i2, n, -1, need)
        for i1 in range(K):
            if winners[i1] and i1 != i2 and nu[i2, i1] < 0.5:
                S_ex[i2, i1] = row_cover(keys, orders, i2, n, i1, need)


@numba.njit(cache=True)
def cover_margins(cache, nu, E, winners, out):
    """``out[i1]`` = smallest left-hand side over the covering constraints of ``R^E_{i1}`` at
    evidence E — ``min(min_{j ∈ Ĥ_{i1}} E_{i1 j}, min_{i2 ≠ i1} row minimum of (5))``, ``+inf``
    if there is none — for every candidate ``winners[i1]`` (NaN for the others).

    "``q ∈ R^E_{i1}``" in the covering reading ⇔ this is ``≥ 1`` for ``E = q·d``; the test (3)
    of Algorithm 1 with ``q = N/log t`` ⇔ it is ``≥ log t`` for ``E = N·d``.
    """
    S_no = cache[3]
    S_ex = cache[4]
    K = nu.shape[0]
    for i1 in range(K):
        if not winners[i1]:
            out[i1] = np.nan
            continue
        m = INF
        for j in range(K):
            if nu[i1, j] > 0.5 and E[i1, j] < m:
                m = E[i1, j]
        for i2 in range(K):
            if i2 != i1:
                s = S_ex[i2, i1] if nu[i2, i1] < 0.5 else S_no[i2]
                if s < m:
                    m = s
        out[i1] = m


# --------------------------------------------------------------------------- whole-matrix kernels


@numba.njit(cache=True)
def _structure(nu):
    K = nu.shape[0]
    L = np.zeros(K, dtype=np.int64)
    losses_into(nu, L)
    L1 = min_losses(L)
    winners = np.zeros(K, dtype=np.bool_)
    winner_mask_into(L, L1, winners)
    D = np.zeros((K, K), dtype=np.float64)
    divergences_into(nu, D)
    return L, L1, winners, D


@numba.njit(cache=True)
def ecw_values_into(nu, out):
    """``out[i] = C^{E*}_i(ν)`` for every Copeland winner i of ν, NaN for the other arms."""
    K = nu.shape[0]
    L, L1, winners, D = _structure(nu)
    cache = target_cache_new(K)
    target_refresh(cache, np.ones(K, dtype=np.bool_), nu, D, L, L1, winners)
    ecw_values_from_rows(cache, nu, D, L, L1, winners, out)


@numba.njit(cache=True)
def ecw_solution_into(nu, i1, q):
    """Fill the symmetric (K, K) ``q`` with the optimal ``q ∈ R^{E*}_{i1}(ν)``; return ``C^{E*}_{i1}``.

    ``i1`` must be a Copeland winner of ν (by losses).
    """
    K = nu.shape[0]
    L, L1, winners, D = _structure(nu)
    only = np.zeros(K, dtype=np.bool_)
    only[i1] = True
    cache = target_cache_new(K)
    target_refresh(cache, np.ones(K, dtype=np.bool_), nu, D, L, L1, only)
    cap = K * (K - 1) // 2 + 1
    a = np.zeros(cap, dtype=np.int64)
    b = np.zeros(cap, dtype=np.int64)
    v = np.zeros(cap, dtype=np.float64)
    n = ecw_support_from_rows(cache, nu, D, L, L1, i1, np.full((K, K), -1.0), 1.0, a, b, v)
    for x in range(K):
        for y in range(K):
            q[x, y] = 0.0
    for m in range(n):
        q[a[m], b[m]] = v[m]
        q[b[m], a[m]] = v[m]
    out = np.zeros(K, dtype=np.float64)
    ecw_values_from_rows(cache, nu, D, L, L1, only, out)
    return out[i1]


@numba.njit(cache=True)
def covering_margin(nu, E, i1):
    """Smallest left-hand side of the covering constraints of ``R^E_{i1}(ν)`` at evidence E
    (:func:`cover_margins` after refreshing every row)."""
    K = nu.shape[0]
    L = np.zeros(K, dtype=np.int64)
    losses_into(nu, L)
    L1 = min_losses(L)
    only = np.zeros(K, dtype=np.bool_)
    only[i1] = True
    cache = cover_cache_new(K)
    cover_refresh(cache, np.ones(K, dtype=np.bool_), nu, E, L, L1, only)
    out = np.zeros(K, dtype=np.float64)
    cover_margins(cache, nu, E, only, out)
    return out[i1]


# --------------------------------------------------------------------------- Python-level API


def _check_winner(a: np.ndarray, i1: int) -> int:
    from duelbench.problems.winners import copeland_winners

    winners = copeland_winners(a, by="losses")
    if int(i1) not in winners:
        raise ValueError(f"arm {i1} is not a Copeland winner (by losses) of this matrix; winners: {winners}")
    return int(i1)


def ecw_constants(P) -> dict[int, float]:
    """``{i1: C^{E*}_{i1}(P)}`` for every Copeland winner i1 (0-based, by losses; paper 000 L208)."""
    a = square_values(P)
    out = np.zeros(a.shape[0])
    ecw_values_into(a, out)
    return {int(i): float(out[i]) for i in np.flatnonzero(~np.isnan(out))}


def ecw_constant(P) -> float:
    """``min_{i1 ∈ [C]} C^{E*}_{i1}(P)``: the coefficient of log T in Theorem 4 (ECWB, L249)."""
    return min(ecw_constants(P).values())


def ecw_target(P, i1: int) -> tuple[float, np.ndarray]:
    """``(C^{E*}_{i1}, q)`` with ``q`` the (K, K) symmetric optimal point of ``R^{E*}_{i1}``
    chosen by the tie rules of the module docstring (zero on the diagonal)."""
    a = square_values(P)
    i1 = _check_winner(a, i1)
    q = np.zeros_like(a)
    value = ecw_solution_into(a, i1, q)
    return float(value), q


def in_re_covering(P, q, i1: int, rtol: float = 1e-12) -> bool:
    """Whether the symmetric (K, K) ``q`` satisfies the covering constraints of ``R^E_{i1}(P)``
    ((4) read as ``q_{i1 j} d_{i1 j} ≥ 1``, (5) as printed, no upper box; decision 1 of
    :mod:`duelbench.algorithms.ecw_rmed`).

    ``rtol`` absorbs the rounding of ``(1/d)·d`` so that :func:`ecw_target`'s own point passes;
    ECW-RMED's test compares integer counts times d with ``log t`` and uses no tolerance.
    """
    a = square_values(P)
    i1 = _check_winner(a, i1)
    D = np.zeros_like(a)
    divergences_into(a, D)
    E = np.ascontiguousarray(np.asarray(q, dtype=np.float64) * D)
    return bool(covering_margin(a, E, i1) >= 1.0 - rtol)


def ecw_lp_bruteforce(P, i1: int, max_constraints: int = 200_000) -> tuple[float, np.ndarray]:
    """``C^{E*}_{i1}`` by a direct LP of ``R^E_{i1}`` (L204), as an independent check of the
    closed form: one variable per unordered pair, the box ``0 ≤ q ≤ 1/d`` (no upper bound when
    d = 0), (4) as equalities and (5) with every subset O enumerated; solved with
    ``scipy.optimize.linprog(method="highs")``.  Losses and regret come from
    :mod:`duelbench.problems` (not from the kernels above).  Small K only.

    Returns ``(value, q)`` with ``q`` the solver's (K, K) symmetric optimum.
    """
    from scipy.optimize import linprog

    from duelbench.problems.regret import regret_matrix
    from duelbench.problems.winners import losses

    a = square_values(P)
    i1 = _check_winner(a, i1)
    K = a.shape[0]
    L = losses(a)
    r = regret_matrix(a, "copeland")
    pairs = [(i, j) for i in range(K) for j in range(i + 1, K)]
    col = {p: n for n, p in enumerate(pairs)}

    def var(i, j):
        return col[(min(i, j), max(i, j))]

    d = np.array([kl_to_half(a[i, j]) for i, j in pairs])
    cost = np.array([r[i, j] for i, j in pairs])
    bounds = [(0.0, 1.0 / dk if dk > 0 else None) for dk in d]
    for j in range(K):  # (4)
        if a[i1, j] > 0.5:
            v = var(i1, j)
            bounds[v] = (1.0 / d[v], 1.0 / d[v])
    rows = []
    for i2 in range(K):  # (5)
        if i2 == i1:
            continue
        sup = [j for j in range(K) if j != i1 and a[i2, j] < 0.5]
        size = int(L[i2] - L[i1] + 1)
        if size > len(sup):
            continue
        for O in itertools.combinations(sup, size):
            row = np.zeros(len(pairs))
            for j in O:
                row[var(j, i2)] = -d[var(j, i2)]
            rows.append(row)
            if len(rows) > max_constraints:
                raise ValueError(f"more than {max_constraints} constraints (5); use the closed form")
    A_ub = np.array(rows) if rows else None
    b_ub = -np.ones(len(rows)) if rows else None
    res = linprog(cost, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"R^E LP failed: {res.message}")
    q = np.zeros((K, K))
    for (i, j), x in zip(pairs, res.x):
        q[i, j] = q[j, i] = x
    return float(res.fun), q
