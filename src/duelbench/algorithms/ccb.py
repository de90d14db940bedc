"""CCB — Copeland Confidence Bound (Zoghi, Karnin, Whiteson & de Rijke, NIPS 2015, Algorithm 1).

Transcribed from Algorithm 1 of the arXiv full version (paper 001 L82–111), α = 0.51 as in
Komiyama et al. (2016) L305.  Algorithm line k is at paper line L(82 + k) for k = 1..9
(9A: L94, 9B: L98, 9C: L102) and L(94 + k) for k = 10..15::

     1  W ← 0                                                                   (L83)
     2  B ← [K]                     (potential Copeland winners)                (L84)
     3  B^i ← ∅ for every i         (shortlists of arms that may beat i)        (L85)
     4  L̄_C ← K                     (estimated number of losses of a winner)    (L86)
     5  for t = 1, 2, …                                                          (L87)
     6    U, L: u_ij, l_ij = W_ij/N_ij ± sqrt(α ln t / N_ij),  u_ii = l_ii = 1/2   (L88)
     7    Cpld_up(i) = #{k ≠ i : u_ik ≥ 1/2},  Cpld_lo(i) = #{k ≠ i : l_ik ≥ 1/2}  (L89)
     8    C_t = argmax_i Cpld_up(i)  (all maximisers)                            (L90)
     9A   if l_ij > 1/2 for some i and j ∈ B^i: reset B, L̄_C and all B^k         (L94)
     9B   for i ∈ B: if Cpld_up(i) < Cpld_lo(j) for some j: B ← B \\ {i}, and     (L98)
            if |B^i| ≠ L̄_C + 1: B^i ← {k : u_ik < 1/2};   if then B = ∅: reset as in 9A
     9C   for i ∈ C_t with Cpld_up(i) = Cpld_lo(i): B ← B ∪ {i}, B^i ← ∅,        (L102)
            L̄_C ← K − 1 − Cpld_up(i); for j ≠ i: if |B^j| < L̄_C + 1: B^j ← ∅,
            if |B^j| > L̄_C + 1: keep L̄_C + 1 random elements of B^j
    10    w.p. 1/4: if S = {(i, j) : j ∈ B^i, 1/2 ∈ [l_ij, u_ij]} ≠ ∅,            (L104)
            (c, d) ← uniform from S; go to 14
    11    if B ∩ C_t ≠ ∅: w.p. 2/3 C_t ← B ∩ C_t                                 (L105)
    12    c ← uniform from C_t                                                   (L106)
    13    w.p. 1/2 the set is B^c, else [K];                                     (L107)
            d ← argmax_{j in the set, l_jc ≤ 1/2} u_jc  (if tied, d ≠ c)
    14    compare (c, d)                                                         (L108)

Decisions on the ambiguities
----------------------------
* **Unexplored pairs (line 6).**  The paper gives no value for N_ij = 0.  The suite's one
  convention "x/0 := 1" of :mod:`duelbench.stats.bounds` (RUCB's, applied to both ratios) is
  used: ``u = 2``, ``l = 0``.  The other natural convention, ``u = 1``, ``l = 0``, gives the
  same answer to every comparison with 1/2 (u ≥ 1/2 and l ≤ 1/2: an unexplored
  pair is unresolved, counts in Cpld_up and not in Cpld_lo, and is admissible in line 13), but
  the two differ in line 13's argmax: with u = 2 no explored opponent beats an unexplored one while
  α ln t ≤ 1 (t ≤ 7 at α = 0.51), and afterwards only explored pairs with few samples can
  (mû + sqrt(α ln t / n) > 2); with u = 1 every explored opponent with mû_jc > 0 would.
* **Boundaries (lines 7, 9A, 10, 13).**  Every comparison of a bound with 1/2 is read from the
  incremental relation of :mod:`duelbench.stats.confident_beats` ("i ≻ j" ⇔ l_ij > 1/2 ⇔
  u_ji < 1/2).  Line 7's ``u_ik ≥ 1/2`` is "not k ≻ i" (so Cpld_up(i) = K − 1 − n_lost[i], as
  printed); line 7's ``l_ik ≥ 1/2`` is taken as ``l_ik > 1/2`` (Cpld_lo(i) = n_won[i]) — the two
  differ only when a bound equals 1/2 to the last bit, see that module's boundary convention;
  9A's ``l_ij > 1/2`` is "i ≻ j"; 9B's ``u_ik < 1/2`` is "k ≻ i"; line 10's
  ``1/2 ∈ [l_ij, u_ij]`` is "pair unresolved"; line 13's ``l_jc ≤ 1/2`` is "not j ≻ c".
* **Line 13 "B^i"** is read as B^c (L107: no index i is in scope; the opponent is chosen for
  a_c of line 12, L106).  If the chosen set is B^c and no j ∈ B^c has l_jc ≤ 1/2 (in
  particular if B^c = ∅, which is always the case for an arm added in 9C), the argmax of L107
  is undefined and the set [K] is used instead; [K] always contains an admissible arm, c itself
  (l_cc = 1/2).
* **Line 13 ties.**  Among the maximisers of u_jc, c (u_cc = 1/2) is removed when another arm
  ties with it ("d is not allowed to equal c"); the remaining maximisers are ordered by arm
  index and one is drawn uniformly (one draw, only if there are several).  An admissible arm j
  whose pair with c is resolved is confidently beaten by c, so u_jc < 1/2 = u_cc and it is
  never a maximiser: the argmax over [K] is taken over ``{j : pair (c, j) unresolved} ∪ {c}``
  (the same maximisers, fewer square roots).
* **9B scope.**  The shortlist rebuild ``B^i ← {k : u_ik < 1/2}`` is applied only to the arms
  removed from B in that step (the clause follows "set B_t ← B_t \\ {a_i}" in L98; a
  third-party code applies it to every arm of B).
  The removal tests use the scores of line 7 (they do not change within a step).  After the
  "B = ∅" reset, 9B is not re-run in the same step (the next step tests the restored B).
  Both resets (9A, and B = ∅ in 9B) restore B, L̄_C and every B^k (paper L94, L98).
* **9C with several qualifying arms.**  They all lie in C_t, so they set the same L̄_C.  All
  are first added to B with their shortlists emptied (index order); then every other shortlist
  is emptied or cut to L̄_C + 1 once.  Processing them one at a time (the paper's "for any")
  gives sets with the same law; only the consumption of random numbers differs.
* **9C random subset.**  "Randomly choose L̄_C + 1 elements": a uniformly random subset, drawn
  by a partial Fisher–Yates shuffle of the shortlist's stored order (m = L̄_C + 1 draws
  ``s = r + ⌊U·(n − r)⌋``, swap positions r and s, keep positions 0..m−1); shortlists are
  processed in increasing arm index.  A shortlist built by 9B is stored in increasing index.
* **Line 10.**  The 1/4 coin is always drawn; if S = ∅ the step continues with line 11.  S is
  ordered lexicographically by (i, j) and one element is drawn uniformly; c = i and d = j.
* **Lines 11/12.**  The 2/3 coin is drawn only if B ∩ C_t ≠ ∅ (B after 9A–9C); C_t and B ∩ C_t
  are ordered by arm index.  A uniform choice from a one-element set draws no number.
* **Order of the sub-steps:** bounds at ln t (t = 1, 2, …, natural log) → 9A → 9B → 9C →
  line 10 → 11 → 12 → 13 → compare; random numbers are drawn in exactly this order.
* Self-comparisons (c = d) are not counted (they carry no information; W_cc is never read).
* Random draws: :func:`duelbench.stats.choice.uniform_index` for uniform choices, one
  ``rng.random()`` per coin.

Departures from the paper.  The listing above follows the paper line by line.  Line 7 prints
``≥ 1/2`` in both counts (L89); the only departure from it is the shared relation's boundary
convention, which differs only when a bound equals 1/2 exactly.  Everything else above is a
choice the paper leaves open.

Incremental bookkeeping and complexity
--------------------------------------
Nothing is recomputed over all K² pairs after the initialisation:

* Cpld_up / Cpld_lo are the relation's per-arm counters (O(log K) per status change, heap of
  expiry times); C_t and max_j Cpld_lo(j) are one O(K) scan of two integer arrays.
* **9A** needs no scan: shortlist members are only ever added while they confidently beat
  their owner (9B), a relation "i ≻ j" can only *appear* when the pair is compared, and every
  violation is removed by the reset it triggers.  So after line 9 there is never a violation,
  and at the next step only the last compared pair can violate 9A: O(1).
* **9B** visits the arms of B (O(|B|) ≤ O(K)); each rebuild of a shortlist is one O(K) column
  scan, at most once per arm between two additions of that arm to B.
* **9C** only touches shortlists whose size is neither 0 nor L̄_C + 1 (those rebuilt by 9B since
  the last 9C), or all K when L̄_C has changed: O(|C_t| + changed shortlists) per step.
* **Line 10**: the set S is kept up to date on every status change of a pair (comparisons and
  expiries) and every shortlist change: O(1) each; drawing from it sorts it (|S| log |S|,
  S is small in steady state: shortlist members whose interval has come to contain 1/2).
* **Line 13**: O(|B^c|) on the shortlist branch; on the [K] branch O(#unresolved pairs of c)
  via per-arm sets of unresolved partners, kept up to date like S.  Ties are put in index
  order by sorting (few) or by marking them in an arm-indexed scratch array (many, e.g. the
  unexplored opponents early in a run): O(min(m log m, K)).

Per step: O(K) integer work (the scan of the score arrays, of C_t and of B) + O(#unresolved
partners of c) bound evaluations + O(log K) per change of the relation, plus the rare event
costs above (a reset is O(K + Σ|B^k|)).  Memory O(K²).  In steady state (the winners' pairs
resolved) the bound evaluations are few and the step is dominated by the O(K) integer scans;
early in a run with large K (all pairs unresolved) by the ~K evaluations of u_jc, as in RUCB.

Implementation note: the state is a tuple of small groups of arrays, and each per-step helper
receives only the groups it reads.  Every kernel is compiled with ``inline="always"``: a call
numba does not inline costs an atomic reference-count update per array handed over, which with
the whole state tuple (≈ 30 arrays) would dominate the step at small K (measured gain of
inlining: 1.34–1.36× per step, see :mod:`duelbench.stats.confident_beats`).
"""

import math

import numba
import numpy as np

from duelbench.stats.choice import uniform_index
from duelbench.stats.bounds import ucb
from duelbench.stats.confident_beats import ALPHA, cb_new, cb_observe, cb_refresh_pair
from duelbench.stats.counts import new_counts
from duelbench.stats.heap import heap_top

from .registry import AlgorithmSpec, alpha_above_half
from .sorting import sort_prefix

# indices into the int64 scalar array ``sc``
LBAR = 0  # L̄_C
NB = 1  # |B|
S_SIZE = 2  # |S|
LAST_C = 3  # the pair compared at the previous step (−1 before the first)
LAST_D = 4
CLEAN_FOR = 5  # every shortlist not marked dirty has size 0 or CLEAN_FOR + 1 (−1: size 0)
N_DIRTY = 6
N_C = 7  # |C_t|
RESETS = 8  # number of resets so far (diagnostics)
N_Q = 9  # number of arms of C_t with Cpld_up = Cpld_lo (9C)

# Layout of the state tuple (grouped so that each helper receives only the arrays it uses)::
#
#   state = (W, cb, params, sc, BS, SL, US, DT, scratch)
#   BS = (B_items, B_pos)                          B as an indexed set (B_pos = −1: not in B)
#   SL = (member, sl, sl_size, S_items, S_pos)     shortlists B^i and the line-10 set S
#   US = (U_items, U_pos, U_size)                  unresolved partners of every arm
#   DT = (dirty, dirty_items)                      shortlists rebuilt by 9B since the last 9C
#   scratch = (C_items, buf, S_buf, vals, mark)


@numba.njit(cache=True, inline="always")
def init(K, params):
    """State: counts, relation, B, shortlists, the sets S and "unresolved partners", scratch."""
    W = new_counts(K)
    cb = cb_new(K)
    sc = np.zeros(10, dtype=np.int64)
    sc[LBAR] = K
    sc[NB] = K
    sc[LAST_C] = -1
    sc[LAST_D] = -1
    sc[CLEAN_FOR] = -1
    BS = (np.arange(K, dtype=np.int64), np.arange(K, dtype=np.int64))
    member = np.zeros((K, K), dtype=np.bool_)  # member[i, j] ⇔ j ∈ B^i
    sl = np.zeros((K, K), dtype=np.int64)  # B^i as a list: sl[i, :sl_size[i]]
    sl_size = np.zeros(K, dtype=np.int64)
    S_items = np.zeros(K * K, dtype=np.int64)  # S as entry ids i*K + j
    S_pos = np.full(K * K, -1, dtype=np.int64)
    SL = (member, sl, sl_size, S_items, S_pos)
    U_items = np.zeros((K, K), dtype=np.int64)
    U_pos = np.full((K, K), -1, dtype=np.int64)
    U_size = np.zeros(K, dtype=np.int64)
    for i in range(K):
        n = 0
        for j in range(K):
            if j != i:
                U_items[i, n] = j
                U_pos[i, j] = n
                n += 1
        U_size[i] = n
    US = (U_items, U_pos, U_size)
    DT = (np.zeros(K, dtype=np.bool_), np.zeros(K, dtype=np.int64))
    scratch = (np.zeros(K, dtype=np.int64), np.zeros(K, dtype=np.int64),
               np.zeros(K * K, dtype=np.int64), np.zeros(K, dtype=np.float64), np.zeros(K, dtype=np.bool_))
    return W, cb, params, sc, BS, SL, US, DT, scratch


# ----------------------------------------------------------------------------- indexed sets
@numba.njit(cache=True, inline="always")
def _iset_add(items, pos, sizes, k, e):
    """Add e to the set stored as ``items[:sizes[k]]`` with positions ``pos`` (no-op if present)."""
    if pos[e] >= 0:
        return
    n = sizes[k]
    items[n] = e
    pos[e] = n
    sizes[k] = n + 1


@numba.njit(cache=True, inline="always")
def _iset_remove(items, pos, sizes, k, e):
    """Remove e (swap with the last item; no-op if absent)."""
    p = pos[e]
    if p < 0:
        return
    n = sizes[k] - 1
    last = items[n]
    items[p] = last
    pos[last] = p
    pos[e] = -1
    sizes[k] = n


# ----------------------------------------------------------------------------- status events
@numba.njit(cache=True, inline="always")
def _sync_entry(SL, sc, i, j, unresolved):
    """Keep S = {(i, j) : j ∈ B^i and pair unresolved} right for the entry (i, j)."""
    member, sl, sl_size, S_items, S_pos = SL
    K = member.shape[0]
    if member[i, j] and unresolved:
        _iset_add(S_items, S_pos, sc, S_SIZE, i * K + j)
    else:
        _iset_remove(S_items, S_pos, sc, S_SIZE, i * K + j)


@numba.njit(cache=True, inline="always")
def _on_status(beats, US, SL, sc, a, b):
    """Pair {a, b} may have changed status: update the unresolved-partner sets and S."""
    U_items, U_pos, U_size = US
    unresolved = beats[a, b] == 0 and beats[b, a] == 0
    if unresolved:
        _iset_add(U_items[a], U_pos[a], U_size, a, b)
        _iset_add(U_items[b], U_pos[b], U_size, b, a)
    else:
        _iset_remove(U_items[a], U_pos[a], U_size, a, b)
        _iset_remove(U_items[b], U_pos[b], U_size, b, a)
    _sync_entry(SL, sc, a, b, unresolved)
    _sync_entry(SL, sc, b, a, unresolved)


@numba.njit(cache=True, inline="always")
def _advance(W, cb, alpha, log_t, US, SL, sc):
    """The relation's ``cb_advance`` at ln t, reporting each expired pair to :func:`_on_status`.

    An expired pair is re-evaluated by ``cb_refresh_pair`` (its evidence, unchanged since its
    last comparison, no longer exceeds ln t), which unresolves it and drops it from the heap.
    """
    K = W.shape[0]
    h = cb[3]
    while True:
        item = heap_top(h)
        if item < 0 or h[0][item] > log_t:
            break
        a = item // K
        b = item % K
        cb_refresh_pair(cb, W, a, b, log_t, alpha)
        _on_status(cb[0], US, SL, sc, a, b)


# ----------------------------------------------------------------------------- B and shortlists
@numba.njit(cache=True, inline="always")
def _clear_shortlist(SL, sc, i):
    member, sl, sl_size, S_items, S_pos = SL
    K = member.shape[0]
    for r in range(sl_size[i]):
        j = sl[i, r]
        member[i, j] = False
        _iset_remove(S_items, S_pos, sc, S_SIZE, i * K + j)
    sl_size[i] = 0


@numba.njit(cache=True, inline="always")
def _set_beaters(beats, SL, sc, DT, i):
    """9B: ``B^i ← {k : u_ik < 1/2} = {k : k ≻ i}`` (in increasing index); marks B^i dirty."""
    member, sl, sl_size, S_items, S_pos = SL
    dirty, dirty_items = DT
    _clear_shortlist(SL, sc, i)
    n = 0
    for k in range(beats.shape[0]):
        if beats[k, i] == 1:  # resolved, so (i, k) is not in S
            member[i, k] = True
            sl[i, n] = k
            n += 1
    sl_size[i] = n
    if not dirty[i]:
        dirty[i] = True
        dirty_items[sc[N_DIRTY]] = i
        sc[N_DIRTY] += 1


@numba.njit(cache=True, inline="always")
def _trim_shortlist(SL, sc, i, m, rng):
    """9C: keep a uniformly random m-subset of B^i (partial Fisher–Yates on the stored order)."""
    member, sl, sl_size, S_items, S_pos = SL
    K = member.shape[0]
    n = sl_size[i]
    for r in range(m):
        s = r + uniform_index(n - r, rng)
        x = sl[i, r]
        sl[i, r] = sl[i, s]
        sl[i, s] = x
    for r in range(m, n):
        j = sl[i, r]
        member[i, j] = False
        _iset_remove(S_items, S_pos, sc, S_SIZE, i * K + j)
    sl_size[i] = m


@numba.njit(cache=True, inline="always")
def _reset(SL, sc, BS, DT):
    """Lines 2–4: B ← [K], B^k ← ∅ for all k, L̄_C ← K."""
    B_items, B_pos = BS
    dirty, dirty_items = DT
    sl_size = SL[2]
    K = B_items.shape[0]
    for i in range(K):
        if sl_size[i] > 0:
            _clear_shortlist(SL, sc, i)
        B_items[i] = i
        B_pos[i] = i
    for r in range(sc[N_DIRTY]):
        dirty[dirty_items[r]] = False
    sc[N_DIRTY] = 0
    sc[NB] = K
    sc[LBAR] = K
    sc[CLEAN_FOR] = -1
    sc[RESETS] += 1


@numba.njit(cache=True, inline="always")
def _fit_shortlist(SL, sc, j, m, rng):
    """9C for one arm j: empty B^j if |B^j| < m, cut it to m random elements if |B^j| > m."""
    n = SL[2][j]
    if 0 < n < m:
        _clear_shortlist(SL, sc, j)
    elif n > m:
        _trim_shortlist(SL, sc, j, m, rng)


# ----------------------------------------------------------------------------- line 9
@numba.njit(cache=True, inline="always")
def scores(n_lost, n_won, C_items, sc):
    """Lines 7–8: C_t into ``C_items[:sc[N_C]]`` (increasing index); returns max_j Cpld_lo(j).

    Cpld_up(i) = K − 1 − n_lost[i], so C_t = argmin n_lost; Cpld_lo(i) = n_won[i].  Also counts
    the arms of C_t with Cpld_up = Cpld_lo (all their pairs resolved) into ``sc[N_Q]``.
    """
    K = n_lost.shape[0]
    lo = n_lost[0]
    hi = n_won[0]
    for i in range(1, K):
        if n_lost[i] < lo:
            lo = n_lost[i]
        if n_won[i] > hi:
            hi = n_won[i]
    n = 0
    q = 0
    for i in range(K):
        if n_lost[i] == lo:
            C_items[n] = i
            n += 1
            if lo + n_won[i] == K - 1:
                q += 1
    sc[N_C] = n
    sc[N_Q] = q
    return hi


@numba.njit(cache=True, inline="always")
def disproven(beats, member, sc):
    """9A test: only the pair compared last can violate "l_ij ≤ 1/2 for all j ∈ B^i" (docstring)."""
    c = sc[LAST_C]
    d = sc[LAST_D]
    if c < 0 or c == d:
        return False
    return (member[c, d] and beats[c, d] == 1) or (member[d, c] and beats[d, c] == 1)


@numba.njit(cache=True, inline="always")
def find_non_winners(n_lost, max_lo, B_items, sc, buf):
    """9B test: the arms i ∈ B with Cpld_up(i) < max_j Cpld_lo(j), into ``buf``; returns their number."""
    K = n_lost.shape[0]
    n = 0
    for r in range(sc[NB]):
        i = B_items[r]
        if K - 1 - n_lost[i] < max_lo:
            buf[n] = i
            n += 1
    return n


@numba.njit(cache=True, inline="always")
def remove_non_winners(beats, SL, sc, BS, DT, buf, n):
    """9B: drop the n arms of ``buf`` from B, rebuild their shortlists; reset if B = ∅."""
    B_items, B_pos = BS
    sl_size = SL[2]
    for r in range(n):
        i = buf[r]
        _iset_remove(B_items, B_pos, sc, NB, i)
        if sl_size[i] != sc[LBAR] + 1:
            _set_beaters(beats, SL, sc, DT, i)
    if sc[NB] == 0:
        _reset(SL, sc, BS, DT)


@numba.njit(cache=True, inline="always")
def winners_settled(n_lost, n_won, B_pos, sl_size, C_items, sc):
    """9C test.  Returns 0 if no arm of C_t has Cpld_up = Cpld_lo, 1 if 9C would change nothing
    (every such arm already in B with an empty shortlist, L̄_C already equal, no shortlist left
    to fit), 2 otherwise."""
    if sc[N_Q] == 0:
        return 0
    K = n_lost.shape[0]
    state = 0
    for r in range(sc[N_C]):
        i = C_items[r]
        if n_lost[i] + n_won[i] == K - 1:
            if state == 0:
                state = 1
            if B_pos[i] < 0 or sl_size[i] > 0 or sc[LBAR] != n_lost[i]:
                return 2
    if state == 1 and (sc[N_DIRTY] > 0 or sc[CLEAN_FOR] != sc[LBAR]):
        return 2
    return state


@numba.njit(cache=True, inline="always")
def add_winners(n_lost, n_won, SL, sc, BS, DT, C_items, rng):
    """9C: arms of C_t whose pairs are all resolved join B; other shortlists get L̄_C + 1 arms."""
    B_items, B_pos = BS
    dirty, dirty_items = DT
    sl_size = SL[2]
    K = n_lost.shape[0]
    for r in range(sc[N_C]):
        i = C_items[r]
        if n_lost[i] + n_won[i] == K - 1:  # Cpld_up(i) = Cpld_lo(i)
            _iset_add(B_items, B_pos, sc, NB, i)
            if sl_size[i] > 0:
                _clear_shortlist(SL, sc, i)
            sc[LBAR] = n_lost[i]  # K − 1 − Cpld_up(i), the same for every arm of C_t
    m = sc[LBAR] + 1
    if sc[CLEAN_FOR] >= 0 and sc[CLEAN_FOR] != sc[LBAR]:
        for j in range(K):
            _fit_shortlist(SL, sc, j, m, rng)
    else:
        nd = sc[N_DIRTY]
        sort_prefix(dirty_items, nd)
        for r in range(nd):
            _fit_shortlist(SL, sc, dirty_items[r], m, rng)
    for r in range(sc[N_DIRTY]):
        dirty[dirty_items[r]] = False
    sc[N_DIRTY] = 0
    sc[CLEAN_FOR] = sc[LBAR]


# ----------------------------------------------------------------------------- lines 10–13
@numba.njit(cache=True, inline="always")
def kth_smallest(items, m, k, mark):
    """The k-th smallest (0-based) of the distinct arm indices ``items[:m]``.

    Sorts a few items; for many items (the ties among unexplored opponents early in a run)
    marks them in ``mark`` (all False on entry and on return) and scans the arms in order.
    """
    if m <= 16:
        sort_prefix(items, m)
        return items[k]
    for r in range(m):
        mark[items[r]] = True
    out = -1
    for j in range(mark.shape[0]):
        if mark[j]:
            if k == 0:
                out = j
                break
            k -= 1
    for r in range(m):
        mark[items[r]] = False
    return out


@numba.njit(cache=True, inline="always")
def explore_shortlists(S_items, S_buf, sc, rng):
    """Line 10 after its 1/4 coin: an entry (i, j) drawn uniformly from S, as i*K + j; −1 if S = ∅."""
    n = sc[S_SIZE]
    if n == 0:
        return -1
    if n == 1:
        return S_items[0]
    for r in range(n):
        S_buf[r] = S_items[r]
    sort_prefix(S_buf, n)
    return S_buf[uniform_index(n, rng)]


@numba.njit(cache=True, inline="always")
def choose_candidate(B_pos, C_items, sc, rng):
    """Lines 11–12: c uniform from B ∩ C_t (w.p. 2/3 if non-empty) or from C_t."""
    n = sc[N_C]
    n_bc = 0
    for r in range(n):
        if B_pos[C_items[r]] >= 0:
            n_bc += 1
    restrict = False
    if n_bc > 0:
        restrict = rng.random() < 2.0 / 3.0
    size = n_bc if restrict else n
    k = 0 if size == 1 else uniform_index(size, rng)
    for r in range(n):
        i = C_items[r]
        if restrict and B_pos[i] < 0:
            continue
        if k == 0:
            return i
        k -= 1
    return -1


@numba.njit(cache=True, inline="always")
def argmax_opponent(W, beats, alpha, c, items, n, with_c, log_t, buf, vals, mark, rng):
    """argmax of u_jc over the admissible j (not j ≻ c) in ``items[:n]`` (and c itself if ``with_c``).

    ``with_c`` is used with the unresolved partners of c, which are all admissible (their
    relation is not re-read); without it every item's admissibility is checked.

    Ties: c is dropped if another arm ties with it; the rest are ordered by index and one is
    drawn uniformly.  Returns −1 if there is no admissible arm.
    """
    best = -np.inf
    count = 0
    for r in range(n):
        j = items[r]
        if not with_c and beats[j, c] == 1:
            vals[r] = -np.inf
            continue
        v = ucb(W, j, c, log_t, alpha)
        vals[r] = v
        if v > best:
            best = v
            count = 1
        elif v == best:
            count += 1
    if with_c and (count == 0 or best < 0.5):
        return c  # u_cc = 1/2 is the unique maximum
    if count == 0:
        return -1
    m = 0
    for r in range(n):
        if vals[r] == best:
            buf[m] = items[r]
            m += 1
            if m == count:
                break
    if m == 1:
        return buf[0]
    return kth_smallest(buf, m, uniform_index(m, rng), mark)


@numba.njit(cache=True, inline="always")
def select(state, t, rng):
    """One step's pair (c, d) at time t (lines 6–13)."""
    W, cb, params, sc, BS, SL, US, DT, scratch = state
    beats, n_lost, n_won, h = cb
    C_items, buf, S_buf, vals, mark = scratch
    alpha = params[ALPHA]
    K = W.shape[0]
    log_t = math.log(t)
    # line 6: bounds at ln t (the status of the pair compared last, then the expiries)
    c = sc[LAST_C]
    d = sc[LAST_D]
    if c >= 0 and c != d:
        _on_status(beats, US, SL, sc, c, d)
    item = heap_top(h)
    if item >= 0 and h[0][item] <= log_t:
        _advance(W, cb, alpha, log_t, US, SL, sc)
    # lines 7–8
    max_lo = scores(n_lost, n_won, C_items, sc)
    # 9A
    if disproven(beats, SL[0], sc):
        _reset(SL, sc, BS, DT)
    # 9B
    n = find_non_winners(n_lost, max_lo, BS[0], sc, buf)
    if n > 0:
        remove_non_winners(beats, SL, sc, BS, DT, buf, n)
    # 9C
    if winners_settled(n_lost, n_won, BS[1], SL[2], C_items, sc) == 2:
        add_winners(n_lost, n_won, SL, sc, BS, DT, C_items, rng)
    # line 10
    if rng.random() < 0.25:
        e = explore_shortlists(SL[3], S_buf, sc, rng)
        if e >= 0:
            return e // K, e % K
    # lines 11–12
    c = choose_candidate(BS[1], C_items, sc, rng)
    # line 13: B^c w.p. 1/2 (falling back to [K] if no arm of B^c is admissible), else [K]
    d = -1
    if rng.random() < 0.5:
        d = argmax_opponent(W, beats, alpha, c, SL[1][c], SL[2][c], False, log_t, buf, vals, mark, rng)
    if d < 0:
        d = argmax_opponent(W, beats, alpha, c, US[0][c], US[2][c], True, log_t, buf, vals, mark, rng)
    return c, d


@numba.njit(cache=True, inline="always")
def update(state, i, j, i_won, t):
    """Line 14: count the outcome and refresh the pair's status (the sets that depend on it are
    brought up to date at the start of the next :func:`select`)."""
    W, cb, params, sc = state[0], state[1], state[2], state[3]
    sc[LAST_C] = i
    sc[LAST_D] = j
    cb_observe(cb, W, i, j, i_won, math.log(t), params[ALPHA])  # self-comparisons are not counted


ALGORITHM = AlgorithmSpec(
    name="ccb",
    title="CCB",
    reference="Zoghi et al. (NIPS 2015), Algorithm 1; alpha = 0.51 as in Komiyama et al. (2016) L305",
    defaults={"alpha": 0.51},
    steps=(init, select, update),
    validate=alpha_above_half("ccb", "Zoghi et al. 2015, Algorithm 1"),
)
