"""SCB — Scalable Copeland Bandits (Zoghi, Karnin, Whiteson & de Rijke, NIPS 2015, Algorithms 2–4).

Transcribed from paper 001 (full version) with the readings declared in
``data/published/zoghi2015.yaml`` (Z4; ``docs/zoghi2015.md``) and the decisions below::

    Algorithm 3 (L126–131), the squaring trick:
      for r = 1, 2, …:
        T ← 2^(2^r); run Algorithm 2 with failure probability δ = ln(T)/T, ε = 0,
        force-terminated after T queries; T_0 ← its number of queries, a ← its output;
        query (a, a) for the remaining T − T_0 steps
    Algorithm 2 (L112–116): Algorithm 4 on K arms whose reward oracle is
      reward(i): draw j ≠ i uniformly; query (a_i, a_j) until the sign of p_ij − 1/2 is known
                 with probability ≥ 1 − δ/K²; return 1 if p_ij > 1/2, else 0
    Algorithm 4 (L905–920), KL-best arm identification:
      1–5:  S_i ← reward(i), I_i ← [0, 1] for every i;   6–7: B ← [K], t ← 2
      8:    while not stop(B, I):
      9:      S_i ← S_i + reward(i) for i ∈ B
      10:     I_i ← {q ∈ [0, 1] : t · d(S_i/t, q) ≤ ln(4tK/δ) + 2 ln ln t} for i ∈ B
      11:     remove from B every i with max I_i < min I_j for some j ∈ B
      12:     t ← t + 1
      13:   output argmax_{i ∈ B} min I_i

Declared readings (Z4; implemented exactly)
-------------------------------------------
* reward(i) (L114): the sign of p_ij − 1/2 is decided by an anytime Hoeffding test on the n
  outcomes of (i, j) drawn so far in this call: stop at the first n with
  ``|p̂_n − 1/2| > sqrt(ln(4K²n²/δ)/(2n))`` and return ``1{p̂_n > 1/2}`` (L114 gives no test;
  a union bound over n gives its 1 − δ/K²).  The strict test is
  :func:`duelbench.stats.hoeffding.hoeffding_side` with ``log_term = ln(4K²/δ) + 2 ln n``.  Each
  comparison is one time step (regret and T_0).
* Stopping rule of Algorithm 4 (line 8, L914, never stops with the ε = 0 that Algorithm 3
  requires, L129: every I_i stays a non-degenerate interval): *top-level separation* —
  with a = argmax_{i∈B} min I_i, stop when every other j ∈ B has
  ``max I_j < min I_a + 1/(K−1)``, or when |B| = 1.
* Phases T = 2^(2^r), r = 1, 2, … (4, 16, 256, 65 536, 2^32, …); δ = ln(T)/T with the natural
  log (the base is not printed, L129); force-termination after T queries with output
  argmax_{i∈B} min I_i; each phase restarts from scratch (no samples, intervals or set B are
  carried over); the experimental horizon truncates the current phase.
* Intervals I_i are KL intervals (:func:`duelbench.stats.kl_bounds.kl_interval`, d =
  :func:`duelbench.stats.kl.kl_bernoulli`, L903).

Further decisions
-----------------
* **Guard on δ.**  δ = min(ln T / T, 1), computed in log space (``ln δ = ln(2^r ln 2) − 2^r ln 2``)
  so that no 2^(2^r) is ever formed as a float.  Since ln(x)/x ≤ 1/e the guard never binds;
  every logarithm in the tests is therefore positive.  Phase lengths are int64 and saturate at
  2^62 from r = 6 on (the phase starting after 2^32 + 65 812 steps; no horizon reaches it).
* **How t counts in Algorithm 4.**  t is the number of rewards every arm of B has received:
  lines 1–5 give each arm its first reward (t = 1, I_i = [0, 1], as printed), and the round of
  line 9 executed with a given t adds the t-th reward, after which line 10 uses that t in
  ``S_i/t``, ``t · d`` and ``ln(4tK/δ) + 2 ln ln t``.  Line 8 is evaluated after lines 1–5
  (with I_i = [0, 1] it can only stop if |B| = 1) and after each round (after the eliminations
  of line 11).  Line 2 ("T = 1", L908) is unused.
* **ln ln t for t < e^e.**  The printed term 2 ln ln t is used literally for every t ≥ 2: it is
  negative for t = 2 (2 ln ln 2 ≈ −0.73) and lies in (0, 2) for 2 < t < e^e.  The level stays
  positive because ln(4tK/δ) ≥ ln(16 · e) > 0.73 (K ≥ 2, t ≥ 2, δ ≤ 1/e); t = 1 never enters
  line 10 (I_i = [0, 1] there).
* **KL-interval tolerance.**  Bisection on each side of S_i/t to a bracket of width ≤
  ``KL_TOL = 1e-10``; the outer end of the bracket is used, so each computed interval contains the
  exact one (the rule is conservative by at most 1e-10 per end, against score steps
  1/(K−1) ≥ 2·10⁻³ for K ≤ 500).  The KL divergence clips q to [10⁻¹², 1 − 10⁻¹²]
  (:mod:`duelbench.stats.kl`), so an end within about 10⁻¹² of 0 or 1 is reported as 0 or 1.
* **Order and simultaneity.**  Rewards of a round are computed one after another in increasing
  arm index (arms are relabelled at random per run by the engine, so the order carries no
  information).  The eliminations of line 11 are simultaneous (all tested against B before
  removal), i.e. i is removed iff max I_i < max_{j∈B} min I_j; the arm attaining that maximum
  is never removed, so B never becomes empty.
* **Ties.**  argmax_{i∈B} min I_i (the stopping rule's a, the output, and the output on
  force-termination) takes the lowest index among equal values.
* **Opponent j.**  Drawn afresh and uniformly from [K] \\ {i} for every reward call (one uniform
  draw: ``uniform_index(K − 1)``, shifted past i); no samples or opponents are reused across
  calls (as printed, L114).  The comparison is recorded as the pair (i, j).
* **A reward call cut off** by force-termination or by the horizon is discarded (its
  comparisons count as queries and regret, its outcome never reaches S_i).
* **Tied pairs (p_ij = 1/2 exactly).**  The test then never decides with probability ≥ 1 − δ/K²;
  the phase runs until its force-termination (no special case).
* **K = 2.**  1/(K − 1) = 1, so the rule stops as soon as min I_a > 0 after the first round
  (t = 2) — scores are 0 or 1 and any positive lower bound separates them.  **K = 1** (only
  reachable by calling the kernel directly; :class:`PreferenceMatrix` needs K ≥ 2): reward is
  undefined, lines 1–5 are skipped, B = {0} stops at once (T_0 = 0) and (0, 0) is played.
* **Exploitation.**  The T − T_0 self-comparisons (a, a) of line 3 of Algorithm 3 are not
  simulated (no random draw: their outcome is never observed), so the random stream of a phase's
  exploration does not depend on earlier exploitation lengths.  Within the horizon they are
  recorded in one block (:func:`duelbench.algorithms.kernels.recorder_block`: each checkpoint inside the block gets
  ``cum + (t_k − t)·r(a, a)``); when the phase end lies at or beyond the horizon the rest of the
  run is closed by :func:`duelbench.algorithms.kernels.recorder_commit`.  ``run_stepwise`` records
  the same pairs one step at a time (for tests; sums equal up to float summation order).

Complexity: O(K) memory.  O(1) per comparison (one uniform draw, one log, one Hoeffding test);
O(|B|) KL bisections (≈ 2·34 divergence evaluations each) per round of Algorithm 4, i.e. per
|B| reward calls; O(1) per exploitation block.
"""

import math

import numba
import numpy as np

from duelbench.algorithms.kernels import duel, recorder_block, recorder_commit, recorder_new, recorder_step
from duelbench.stats.choice import uniform_index
from duelbench.stats.hoeffding import hoeffding_side
from duelbench.stats.kl_bounds import kl_interval

from .registry import AlgorithmSpec

#: Bisection tolerance of the KL intervals (see "KL-interval tolerance").
KL_TOL = 1e-10
#: Phase lengths saturate at 2^MAX_LOG2_LEN (int64).
MAX_LOG2_LEN = 62

# int64 scalars ``st``
PHASE = 0  # r
PH_LEN = 1  # T = 2^(2^r) (saturated)
PH_USED = 2  # queries used in this phase
EXPLORING = 3  # 1 while Algorithm 2 runs, 0 once it has returned (or was force-terminated)
ARM = 4  # the arm returned by Algorithm 2 (−1 before)
CUR = 5  # the arm whose reward is being computed
ROUND = 6  # Algorithm 4's t: the round in progress adds the t-th reward of every arm in B
OPP = 7  # the current opponent j (−1: no reward call open)
N_CMP = 8  # comparisons of the open reward call
N_WIN = 9  # wins of CUR among them
B_SIZE = 10  # |B|
STATUS = 11  # how the phase's exploration ended: 1 stopping rule, 0 force-terminated, −1 still running
N_ST = 12

# float64 scalars ``fl``
LOG_4KK_DELTA = 0  # ln(4K²/δ), the Hoeffding test's constant part
LOG_4K_DELTA = 1  # ln(4K/δ), Algorithm 4's constant part
N_FL = 2


@numba.njit(cache=True, inline="always")
def phase_log_delta(r):
    """ln δ for phase r: δ = min(ln T / T, 1), T = 2^(2^r), i.e. ``ln(2^r ln 2) − 2^r ln 2`` (≤ 0)."""
    log_T = (2.0 ** r) * math.log(2.0)
    return min(math.log(log_T) - log_T, 0.0)


@numba.njit(cache=True, inline="always")
def phase_length(r):
    """T = 2^(2^r) as int64, saturated at 2^62 for 2^r ≥ 62."""
    e = 2 ** r
    if e >= MAX_LOG2_LEN:
        e = MAX_LOG2_LEN
    return np.int64(1) << np.int64(e)


@numba.njit(cache=True, inline="always")
def level(fl, t):
    """Right-hand side of line 10: ``ln(4tK/δ) + 2 ln ln t`` (t ≥ 2)."""
    return fl[LOG_4K_DELTA] + math.log(t) + 2.0 * math.log(math.log(t))


@numba.njit(cache=True, inline="always")
def start_phase(state, r):
    """Reset everything for phase r (Algorithm 3 line 2): fresh Algorithm 2/4 state."""
    st, fl, S, in_B, lo, hi = state
    K = S.shape[0]
    log_delta = phase_log_delta(r)
    fl[LOG_4KK_DELTA] = math.log(4.0 * K * K) - log_delta
    fl[LOG_4K_DELTA] = math.log(4.0 * K) - log_delta
    st[PHASE] = r
    st[PH_LEN] = phase_length(r)
    st[PH_USED] = 0
    st[ROUND] = 1
    st[CUR] = 0
    st[OPP] = -1
    st[N_CMP] = 0
    st[N_WIN] = 0
    st[B_SIZE] = K
    for i in range(K):
        S[i] = 0
        in_B[i] = True
        lo[i] = 0.0
        hi[i] = 1.0
    if K == 1:  # reward undefined; B = {0} stops at once
        st[EXPLORING] = 0
        st[ARM] = 0
        st[STATUS] = 1
    else:
        st[EXPLORING] = 1
        st[ARM] = -1
        st[STATUS] = -1


@numba.njit(cache=True, inline="always")
def init(K, params):
    """State ``(st, fl, S, in_B, lo, hi)`` at the start of phase r = 1."""
    st = np.zeros(N_ST, dtype=np.int64)
    fl = np.zeros(N_FL, dtype=np.float64)
    S = np.zeros(K, dtype=np.int64)
    in_B = np.ones(K, dtype=np.bool_)
    lo = np.zeros(K, dtype=np.float64)
    hi = np.ones(K, dtype=np.float64)
    state = (st, fl, S, in_B, lo, hi)
    start_phase(state, 1)
    return state


@numba.njit(cache=True, inline="always")
def best_lower(state):
    """argmax_{i∈B} min I_i, lowest index on ties (the output of line 13)."""
    st, fl, S, in_B, lo, hi = state
    best = -1
    for i in range(S.shape[0]):
        if in_B[i] and (best < 0 or lo[i] > lo[best]):
            best = i
    return best


@numba.njit(cache=True, inline="always")
def separated(state, a):
    """The declared stopping rule: |B| = 1, or max I_j < min I_a + 1/(K−1) for every j ∈ B \\ {a}."""
    st, fl, S, in_B, lo, hi = state
    K = S.shape[0]
    if st[B_SIZE] <= 1:
        return True
    bar = lo[a] + 1.0 / (K - 1)
    for j in range(K):
        if in_B[j] and j != a and not hi[j] < bar:
            return False
    return True


@numba.njit(cache=True, inline="always")
def end_round(state):
    """Lines 10–12 after the t-th reward of every arm in B, then the test of line 8."""
    st, fl, S, in_B, lo, hi = state
    K = S.shape[0]
    t = st[ROUND]
    if t >= 2:
        lev = level(fl, t)
        m = -1.0
        for i in range(K):
            if in_B[i]:
                a, b = kl_interval(S[i] / t, t, lev, KL_TOL)
                lo[i] = a
                hi[i] = b
                if a > m:
                    m = a
        for i in range(K):  # line 11, simultaneous: i goes iff max I_i < max_j min I_j
            if in_B[i] and hi[i] < m:
                in_B[i] = False
                st[B_SIZE] -= 1
    a = best_lower(state)
    if separated(state, a):
        st[EXPLORING] = 0
        st[ARM] = a
        st[STATUS] = 1
        return
    st[ROUND] = t + 1
    for i in range(K):
        if in_B[i]:
            st[CUR] = i
            return


@numba.njit(cache=True, inline="always")
def open_reward(state, rng):
    """Start the reward call of arm CUR: draw its opponent j ≠ CUR uniformly (one uniform draw)."""
    st = state[0]
    i = st[CUR]
    j = uniform_index(state[2].shape[0] - 1, rng)
    st[OPP] = j + 1 if j >= i else j


@numba.njit(cache=True, inline="always")
def select(state, t, rng):
    """The next exploration comparison (i, j); opens a reward call (draws j) if none is open."""
    st = state[0]
    if st[OPP] < 0:
        open_reward(state, rng)
    return st[CUR], st[OPP]


@numba.njit(cache=True, inline="always")
def update(state, i, j, i_won, t):
    """Count one comparison of the open reward call; close it when the Hoeffding test decides."""
    st, fl, S, in_B, lo, hi = state
    K = S.shape[0]
    st[PH_USED] += 1
    n = st[N_CMP] + 1
    w = st[N_WIN] + (1 if i_won else 0)
    side = hoeffding_side(w, n, fl[LOG_4KK_DELTA] + 2.0 * math.log(n))
    if side == 0:
        st[N_CMP] = n
        st[N_WIN] = w
    else:
        if side > 0:
            S[i] += 1
        st[OPP] = -1
        st[N_CMP] = 0
        st[N_WIN] = 0
        nxt = -1
        for k in range(i + 1, K):
            if in_B[k]:
                nxt = k
                break
        if nxt >= 0:
            st[CUR] = nxt
        else:
            end_round(state)
    if st[EXPLORING] == 1 and st[PH_USED] >= st[PH_LEN]:  # force-termination (Algorithm 3 line 2)
        st[EXPLORING] = 0
        st[ARM] = best_lower(state)
        st[STATUS] = 0


@numba.njit(cache=True)
def _trace_phase(trace, st, start, t, status):
    r = st[PHASE]
    if r - 1 < trace.shape[0]:
        row = trace[r - 1]
        row[0] = r
        row[1] = start
        row[2] = t - start
        row[3] = st[ARM]
        row[4] = status
        row[5] = st[ROUND]
        row[6] = st[B_SIZE]


@numba.njit(cache=True)
def _run(P, regret, checkpoints, params, rng, record_pairs, closed_form, trace):
    K = P.shape[0]
    T = checkpoints[-1]
    state = init(K, params)
    st = state[0]
    rec = recorder_new(regret, checkpoints, record_pairs)
    t = 0  # steps done
    start = 0  # steps before the current phase
    while t < T:
        if st[EXPLORING] == 1:
            # = select(state, t + 1, rng); the random generator is passed to a callee only once
            # per reward call (passing it costs tens of ns per call)
            if st[OPP] < 0:
                open_reward(state, rng)
            i = st[CUR]
            j = st[OPP]
            update(state, i, j, duel(P, i, j, rng), t + 1)
            t += 1
            recorder_step(rec, t, i, j)
            continue
        # Algorithm 2 has returned after T_0 = t − start queries: play (a, a) until the phase ends
        _trace_phase(trace, st, start, t, st[STATUS])
        a = st[ARM]
        remaining = st[PH_LEN] - st[PH_USED]
        if remaining >= T - t:
            if closed_form:
                recorder_commit(rec, t, a, a)
            else:
                for s in range(t + 1, T + 1):
                    recorder_step(rec, s, a, a)
            t = T
            break
        if closed_form:
            recorder_block(rec, t, remaining, a, a)
        else:
            for s in range(t + 1, t + remaining + 1):
                recorder_step(rec, s, a, a)
        t += remaining
        start = t
        start_phase(state, st[PHASE] + 1)
    if st[EXPLORING] == 1:  # the horizon cut the exploration
        _trace_phase(trace, st, start, t, -1)
    return rec[3], rec[4]


@numba.njit(cache=True)
def run(P, regret, checkpoints, params, rng, record_pairs):
    """One run with horizon ``checkpoints[-1]`` (see :mod:`duelbench.algorithms.kernels`)."""
    return _run(P, regret, checkpoints, params, rng, record_pairs, True, np.zeros((0, 7), dtype=np.int64))


@numba.njit(cache=True)
def run_stepwise(P, regret, checkpoints, params, rng, record_pairs):
    """As :func:`run`, but exploitation steps are recorded one at a time (for tests)."""
    return _run(P, regret, checkpoints, params, rng, record_pairs, False, np.zeros((0, 7), dtype=np.int64))


@numba.njit(cache=True)
def run_traced(P, regret, checkpoints, params, rng, trace):
    """As :func:`run`, also filling ``trace`` (phases × 7, int64) with one row per phase reached:
    ``(r, start, T_0, arm, status, t, |B|)`` — steps before the phase, exploration queries, the
    arm returned (−1 if none yet), status 1 = stopping rule, 0 = force-terminated, −1 = cut by the
    horizon, Algorithm 4's round t and |B| at that moment."""
    return _run(P, regret, checkpoints, params, rng, False, True, trace)


TRACE_FIELDS = ("r", "start", "T0", "arm", "status", "t", "B")


ALGORITHM = AlgorithmSpec(
    name="scb",
    title="SCB",
    reference="Zoghi et al. (NIPS 2015), Algorithms 2-4 (paper 001 L112-131, L905-920); readings Z4 of "
              "data/published/zoghi2015.yaml",
    defaults={},
    run=run,
)
