"""One comparison at a time: every registered algorithm driven on its own kernels.

The engine runs an algorithm in one of three ways (:class:`~duelbench.algorithms.registry.AlgorithmSpec`):
step kernels ``steps=(init, select, update)`` inside the shared loop of
:mod:`duelbench.engine.loop`; a ``run`` kernel with a loop of its own; or a pure-Python
:class:`~duelbench.algorithms.registry.Policy`.  A *driver* exposes each of them as the same
four operations on an explicit state, so that :class:`duelbench.online.OnlinePolicy` can hand
out pairs and take outcomes from outside:

* ``init(K, horizon, params, rng) -> state``
* ``select(state, t, rng) -> (i, j, observed)`` — the pair of step t (1-based); ``observed`` is
  False for a step whose outcome the engine never draws (a self-comparison played after an
  explore-then-exploit algorithm has committed, or a batched algorithm's last arm), so that
  the caller consumes exactly the engine's random draws;
* ``update(state, i, j, i_won, t, observed)`` — the outcome of step t;
* ``recommend(state) -> tuple[int, ...] | None`` — the algorithm's current best guess.

Step kernels are called as they are.  The ``run`` kernels loop over the horizon and duel inside
the loop, so their drivers repeat that loop one iteration per call, around the module's own
kernels, without touching the module:

* BTM (Yue & Joachims 2011, Algorithm 1): ``btm.select`` / ``btm.update`` while |W| > 1, then
  (b̂, b̂), unobserved, as :func:`duelbench.algorithms.btm.run` (which adds those steps in
  closed form without a draw).
* Copeland and Condorcet SAVAGE (Urvoy et al. 2013): ``next_pair`` / ``update`` while W ≠ ∅,
  then the exploited arm's self-comparison, unobserved (``run`` commits in closed form).
* SCB (Zoghi et al. 2015, Algorithms 2–4): ``scb.select`` / ``scb.update`` while Algorithm 2
  explores; then (a, a), unobserved, until the phase's 2^(2^r) queries are spent, and the next
  phase starts (Algorithm 3), as :func:`duelbench.algorithms.scb._run`.
* PCOMP, SCOMP, SCOMP2 (Agarwal et al. 2022, Algorithms 1–3): :mod:`duelbench.algorithms.batched`
  has one function per algorithm and phase (``_pcomp``, ``_scomp_round``, ``_scomp2_round``,
  ``_self_tail``), each listing a batch, playing it and testing its outcomes;
  :class:`BatchedDriver` splits them around the outcomes that come from outside: the same pair
  lists and batch sizes before a batch, the same tests after it (``_eliminate``, ``_switch``,
  ``_candidate``), with the module's setting, seed draw and batch log.

``tests/test_online.py`` checks, for every built-in algorithm, that a driver fed with the
engine's duel outcomes selects exactly the pairs :func:`duelbench.simulate` records.
"""

from __future__ import annotations

import numpy as np

from duelbench.algorithms import batched, btm, ccb, condorcet_savage, ecw_rmed, rmed, savage, scb
from duelbench.algorithms.registry import AlgorithmSpec, params_array
from duelbench.stats.counts import new_counts, record_outcome


def arms_of(mask) -> tuple[int, ...] | None:
    """The arms where ``mask`` holds, in increasing order (None if there is none)."""
    arms = tuple(int(a) for a in np.flatnonzero(np.asarray(mask)))
    return arms or None


def fewest(values) -> tuple[int, ...]:
    """The arms attaining the minimum of ``values``."""
    values = np.asarray(values)
    return arms_of(values == values.min())


def most(values) -> tuple[int, ...] | None:
    """The arms attaining the maximum of ``values`` (None while every value is 0)."""
    values = np.asarray(values)
    return arms_of(values == values.max()) if values.max() > 0 else None


# --------------------------------------------------------------------------- step kernels
def _recommend_rucb(state):
    """The hypothesis B of RUCB (Zoghi et al. 2014) while it is in C, else C (arms with no
    confident loss), else None."""
    n_lost = state[1][1]
    b = int(state[3][0])
    if b >= 0 and n_lost[b] == 0:
        return (b,)
    return arms_of(n_lost == 0)


def _recommend_copeland_candidates(state):
    """D-TS / D-TS+ (Wu & Liu 2016, Algorithm 1 lines 4–6): C, the arms with the largest
    optimistic Copeland score (the fewest confident losses)."""
    return fewest(state[1][1])


def _recommend_ccb(state):
    """CCB (Zoghi et al. 2015, Algorithm 1 lines 8, 11): B ∩ C_t when not empty, else C_t."""
    n_lost = state[1][1]
    C = set(fewest(n_lost))
    B_items = state[4][0]
    B = {int(a) for a in B_items[: state[3][ccb.NB]]}
    return tuple(sorted(B & C)) or tuple(sorted(C))


def _recommend_rcs(state):
    """RCS (Zoghi et al. 2014, WSDM): the arm(s) chosen as champion most often."""
    return most(state[2])


def _recommend_rmed(state):
    """RMED1 (Komiyama et al. 2015): î* = argmin Î (lowest index on ties)."""
    return (int(rmed.best_arm(state[1])),)


def _recommend_ecw_rmed(state):
    """ECW-RMED (Komiyama et al. 2016, Algorithm 1): the empirical Copeland winners C_cop(μ̂)."""
    return arms_of(state[ecw_rmed.S_WIN])


def _recommend_sparring(state):
    """Sparring (Ailon et al. 2014): the arm(s) the two machines proposed most often."""
    return most(state[0].sum(axis=0))


def _recommend_none(state):
    return None


#: Best guess of each built-in step algorithm (see :meth:`duelbench.online.OnlinePolicy.recommend`).
STEP_RECOMMEND = {
    "random": _recommend_none,
    "rucb": _recommend_rucb,
    "dts": _recommend_copeland_candidates,
    "dts_plus": _recommend_copeland_candidates,
    "ccb": _recommend_ccb,
    "rcs": _recommend_rcs,
    "rmed1": _recommend_rmed,
    "ecw_rmed": _recommend_ecw_rmed,
    "sparring": _recommend_sparring,
}


class Driver:
    """Base class: an algorithm as ``init`` / ``select`` / ``update`` / ``recommend``.

    Attributes
    ----------
    name : the algorithm's registry name.
    needs_horizon : its rules depend on the horizon T (the policy then requires ``horizon=``).
    horizon_use : where T enters its rules (for the error message when it is missing).
    batched : it commits to a batch of comparisons at a time (:meth:`batch`).
    saveable : its state is a tuple of arrays and numbers (written by
        :mod:`duelbench.online.state_file`).
    """

    needs_horizon = False
    horizon_use = ""
    batched = False
    saveable = True

    def __init__(self, spec: AlgorithmSpec):
        self.name = spec.name

    def init(self, K: int, horizon: int | None, params: dict, rng):
        raise NotImplementedError

    def select(self, state, t: int, rng) -> tuple[int, int, bool]:
        raise NotImplementedError

    def update(self, state, i: int, j: int, i_won: bool, t: int, observed: bool) -> None:
        raise NotImplementedError

    def recommend(self, state) -> tuple[int, ...] | None:
        return None

    def batch(self, state, t: int, rng) -> list[tuple[int, int, bool]]:
        """The comparisons that can be made before the next outcome is needed: for an
        algorithm that is not batched, the single pair of :meth:`select`."""
        return [self.select(state, t, rng)]


class StepDriver(Driver):
    """Step kernels ``(init, select, update)``, called exactly as the engine's loop calls them."""

    def __init__(self, spec: AlgorithmSpec):
        super().__init__(spec)
        self._init, self._select, self._update = spec.steps
        self._recommend = STEP_RECOMMEND.get(spec.name, _recommend_none)

    def init(self, K, horizon, params, rng):
        return self._init(K, params_array(self.name, params))

    def select(self, state, t, rng):
        i, j = self._select(state, t, rng)
        return int(i), int(j), True

    def update(self, state, i, j, i_won, t, observed):
        self._update(state, i, j, i_won, t)

    def recommend(self, state):
        return self._recommend(state)


class PythonPolicyDriver(Driver):
    """A pure-Python :class:`~duelbench.algorithms.registry.Policy`, constructed as the engine
    constructs it, ``Policy(K, horizon, rng, **params)`` (so it needs the horizon).  Its
    ``recommend()`` method is used when it has one."""

    needs_horizon = True
    horizon_use = "a Python Policy receives T when it is constructed"
    saveable = False

    def __init__(self, spec: AlgorithmSpec):
        super().__init__(spec)
        self._cls = spec.policy

    def init(self, K, horizon, params, rng):
        return (self._cls(K, horizon, rng, **params),)

    def select(self, state, t, rng):
        i, j = state[0].select(t)
        return int(i), int(j), True

    def update(self, state, i, j, i_won, t, observed):
        state[0].update(i, j, i_won, t)

    def recommend(self, state):
        method = getattr(state[0], "recommend", None)
        if method is None:
            return None
        out = method()
        if out is None:
            return None
        return tuple(int(a) for a in np.atleast_1d(out))


# --------------------------------------------------------------------------- explore-then-exploit
class BeatTheMeanDriver(Driver):
    """BTM (Yue & Joachims 2011, Algorithm 1, online): exploration by ``btm.select`` /
    ``btm.update`` while |W| > 1, then the self-comparison (b̂, b̂) of the last arm of W for the
    rest of the horizon, unobserved (:func:`duelbench.algorithms.btm.run` draws nothing there).

    ``recommend()``: the working set W (b̂ alone once exploration is over).
    """

    needs_horizon = True
    horizon_use = "the confidence radius uses delta = 1/(2KT)"

    def init(self, K, horizon, params, rng):
        return btm.init(K, horizon, params_array(self.name, params))

    def select(self, state, t, rng):
        sc = state[6]
        if sc[btm.N_ACTIVE] > 1:
            b, b2 = btm.select(state, rng)
            return int(b), int(b2), True
        h = int(sc[btm.WINNER])
        return h, h, False

    def update(self, state, i, j, i_won, t, observed):
        if observed:
            btm.update(state, i, j, i_won)

    def recommend(self, state):
        return arms_of(state[4])


class CopelandSavageDriver(Driver):
    """Copeland SAVAGE (Urvoy et al. 2013): the least-sampled pair of W (``savage.next_pair``)
    while W ≠ ∅, then (î, î) with î = ``savage.copeland_choice``, unobserved (``run`` adds the
    exploitation in closed form without a draw).

    ``recommend()``: the exploited arm î once chosen; before, the arm ``copeland_choice`` would
    exploit if exploration ended now (most empirical wins, then most certified wins).
    """

    needs_horizon = True
    horizon_use = "the Hoeffding radius uses delta = 1/T"

    def init(self, K, horizon, params, rng):
        return savage.init(K, horizon, params_array(self.name, params))

    def _inner(self, state):
        return state

    def _choice(self, inner):
        return savage.copeland_choice(inner)

    def _update(self, state, q, i_won):
        savage.update(state, q, i_won)

    def select(self, state, t, rng):
        inner = self._inner(state)
        q = savage.next_pair(inner)
        if q >= 0:
            return int(inner[1][q]), int(inner[2][q]), True
        sc = inner[11]
        if sc[savage.WINNER] < 0:
            sc[savage.WINNER] = self._choice(inner)
        w = int(sc[savage.WINNER])
        return w, w, False

    def update(self, state, i, j, i_won, t, observed):
        if observed:
            self._update(state, int(self._inner(state)[3][i, j]), i_won)

    def recommend(self, state):
        inner = self._inner(state)
        w = int(inner[11][savage.WINNER])
        return (w,) if w >= 0 else (int(self._choice(inner)),)


class CondorcetSavageDriver(CopelandSavageDriver):
    """Condorcet SAVAGE (Urvoy et al. 2013): as :class:`CopelandSavageDriver` with the Condorcet
    independence test and ``condorcet_savage.condorcet_choice`` (fewest certain losses).

    ``recommend()``: the exploited arm once chosen; before, the arm with the fewest certain
    losses (then the most empirical wins), the certified Condorcet winner when there is one.
    """

    def init(self, K, horizon, params, rng):
        return condorcet_savage.init(K, horizon, params_array(self.name, params))

    def _inner(self, state):
        return state[0]

    def _choice(self, inner):
        return condorcet_savage.condorcet_choice(inner)

    def _update(self, state, q, i_won):
        condorcet_savage.update(state[0], q, i_won, state[1])


class ScalableCopelandDriver(Driver):
    """SCB (Zoghi et al. 2015, Algorithms 2–4): ``scb.select`` / ``scb.update`` while Algorithm 2
    explores; then its output a is compared with itself, unobserved, until the phase's
    T = 2^(2^r) queries are spent, and phase r + 1 starts from scratch (Algorithm 3), exactly as
    :func:`duelbench.algorithms.scb.run` (whose exploitation draws nothing).  The state is the
    kernel state and ``last``, the arm returned by the latest finished Algorithm 2.

    ``recommend()``: the arm Algorithm 2 returned in the current phase; while it still explores,
    the arm of the previous phase; None before the first phase has returned.
    """

    def init(self, K, horizon, params, rng):
        return scb.init(K, params_array(self.name, params)), np.full(1, -1, dtype=np.int64)

    def select(self, state, t, rng):
        inner = state[0]
        st = inner[0]
        if st[scb.EXPLORING] == 1:
            i, j = scb.select(inner, t, rng)
            return int(i), int(j), True
        a = int(st[scb.ARM])
        return a, a, False

    def update(self, state, i, j, i_won, t, observed):
        inner, last = state
        st = inner[0]
        if observed:
            scb.update(inner, i, j, i_won, t)
            if st[scb.EXPLORING] == 0:
                last[0] = st[scb.ARM]
        else:
            st[scb.PH_USED] += 1
        if st[scb.EXPLORING] == 0 and st[scb.PH_USED] >= st[scb.PH_LEN]:
            scb.start_phase(inner, int(st[scb.PHASE]) + 1)

    def recommend(self, state):
        st = state[0][0]
        a = int(st[scb.ARM]) if st[scb.EXPLORING] == 0 else int(state[1][0])
        return (a,) if a >= 0 else None


# --------------------------------------------------------------------------- batched
# int64 scalars of the batched driver
BS_T, BS_ROUND, BS_PCOMP, BS_CAND, BS_KIND, BS_PAIRS, BS_SIZE, BS_STEPS, BS_POS = range(9)
N_BS = 9
# the driver's state tuple
(B_PARAMS, B_W, B_WB, B_ACTIVE, B_SEED, B_PA, B_PB, B_LOG, B_SCALARS) = range(9)


class BatchedDriver(Driver):
    """PCOMP, SCOMP and SCOMP2 (Agarwal, Ghuge & Nagarajan 2022, Algorithms 1–3), one comparison
    at a time, on the functions of :mod:`duelbench.algorithms.batched`.

    Each function of the module that plays batches — ``_pcomp`` (Algorithm 1),
    ``_scomp_round`` (Algorithm 2 lines 5-12), ``_scomp2_round`` (Algorithm 3 lines 5-14) and
    ``_self_tail`` (|A| = 1) — plans a batch (its pairs by ``_pairs`` / ``_pairs_with``,
    c = ``_comparisons(s, r)``), plays it with ``_batch`` and, when it is complete, runs the
    round's tests.  The driver makes the same split around the outcomes that come from outside:
    :meth:`_plan` lists the next batch as that function would, :meth:`select` / :meth:`batch`
    hand its comparisons out round-robin in the engine's order, and when the batch's last outcome
    arrives :meth:`_finish` logs it (``_log_batch``) and calls the same tests on the same
    arguments: ``_eliminate`` (the elimination lines, the KL or the γ-rule, the γ multiples
    ``GAMMA_*_SQ``), ``_switch`` (the switch test, A' and its log entry), ``_candidate``
    (SCOMP2's i*_r).  The run's constants are ``_setting`` (δ, the KL level, q = T^(1/B)); the
    seed set is drawn at :meth:`init` by ``_draw_seed_set`` from the run's generator, as
    ``_core`` draws it before the first batch.  Once |A| = 1 the remaining budget is one batch of
    (a, a), unobserved.  The state keeps the module's batch log, equal to the engine's except the
    good-event counts (they need the true matrix; they stay 0).

    ``recommend()``: the active set A (one arm once every other arm is eliminated).
    """

    needs_horizon = True
    horizon_use = "the batch sizes q^r use q = T^(1/B) and delta depends on T"
    batched = True

    def __init__(self, spec: AlgorithmSpec):
        super().__init__(spec)
        self.algo = batched.NAMES.index(spec.name)

    # state = (params, W, Wb, active A, seed S, pa, pb, log, int64 scalars BS_*)
    def init(self, K, horizon, params, rng):
        p = params_array(self.name, params)
        npairs = max(K * (K - 1) // 2, 1)
        log = np.zeros(batched.log_length(K, int(p[batched.P_BATCHES])), dtype=np.int64)
        batched._log_init(log, K)
        active = np.ones(K, dtype=np.bool_)
        seed = np.zeros(K, dtype=np.bool_)
        st = np.zeros(N_BS, dtype=np.int64)
        st[BS_T] = horizon
        st[BS_ROUND] = 1  # exponent r of c = q^r
        st[BS_PCOMP] = self.algo == batched.PCOMP  # playing PCOMP: Algorithm 1, or after a switch
        st[BS_CAND] = -1  # SCOMP2's candidate i*_r between r(1) and the end of r(2)
        if not st[BS_PCOMP] and batched._draw_seed_set(rng, seed, p[batched.P_SEED_EXPONENT], log) == 0:
            log[batched.L_SEED_EMPTY] = 1  # empty S: PCOMP on all arms from round 1, a switch at r' = 1
            batched._log_switch(log, 1, active)
            st[BS_PCOMP] = 1
        state = (p, new_counts(K), new_counts(K), active, seed, np.zeros(npairs, dtype=np.int64),
                 np.zeros(npairs, dtype=np.int64), log, st)
        self._plan(state, 0)
        return state

    def _setting(self, state):
        """``batched._setting`` of the run (the namedtuple the module's functions take)."""
        return batched._setting(state[B_ACTIVE].shape[0], int(state[B_SCALARS][BS_T]), state[B_PARAMS], self.algo)

    def _plan(self, state, t):
        """The next batch after t comparisons, as the function that would play it lists it."""
        Wb, active, seed, pa, pb, st = (state[x] for x in (B_WB, B_ACTIVE, B_SEED, B_PA, B_PB, B_SCALARS))
        T = int(st[BS_T])
        st[BS_POS] = 0
        if np.count_nonzero(active) < 2:  # _self_tail: (a, a) for the remaining budget, no duels
            pa[0] = pb[0] = batched._last(active)
            st[BS_KIND], st[BS_PAIRS], st[BS_SIZE], st[BS_STEPS] = batched.KIND_SELF, 1, T - t, T - t
            return
        if st[BS_PCOMP]:  # _pcomp: every pair of A (Algorithm 1 line 4)
            kind, m = batched.KIND_PCOMP, batched._pairs(active, active, pa, pb)
        elif self.algo == batched.SCOMP:  # _scomp_round: every pair of S × A (Algorithm 2 line 5)
            kind, m = batched.KIND_SEEDED, batched._pairs(active, seed, pa, pb)
        elif st[BS_CAND] < 0 and np.count_nonzero(seed) >= 2:  # _scomp2_round r(1): all pairs of S (line 5)
            kind, m = batched.KIND_SEED_PAIRS, batched._pairs(seed, seed, pa, pb)
        else:  # _scomp2_round r(2): i*_r against every b_j ∈ A (line 7); |S| = 1: the seed is the candidate
            if st[BS_CAND] < 0:
                st[BS_CAND] = batched._last(seed)
            kind, m = batched.KIND_CANDIDATE, batched._pairs_with(active, int(st[BS_CAND]), pa, pb)
        for k in range(m):  # the batch's fresh counts (Eq. (1)), reset as batched._play resets them
            Wb[pa[k], pb[k]] = 0.0
            Wb[pb[k], pa[k]] = 0.0
        c = batched._comparisons(self._setting(state), int(st[BS_ROUND]))
        st[BS_KIND], st[BS_PAIRS], st[BS_SIZE], st[BS_STEPS] = kind, m, c, min(m * c, T - t)

    def _pair(self, state, pos):
        pa, pb, st = state[B_PA], state[B_PB], state[B_SCALARS]
        k = pos % st[BS_PAIRS]
        return int(pa[k]), int(pb[k]), bool(st[BS_KIND] != batched.KIND_SELF)

    def select(self, state, t, rng):
        return self._pair(state, int(state[B_SCALARS][BS_POS]))

    def batch(self, state, t, rng):
        st = state[B_SCALARS]
        return [self._pair(state, pos) for pos in range(int(st[BS_POS]), int(st[BS_STEPS]))]

    def update(self, state, i, j, i_won, t, observed):
        W, Wb, log, st = state[B_W], state[B_WB], state[B_LOG], state[B_SCALARS]
        if observed:
            record_outcome(W, i, j, i_won)
            record_outcome(Wb, i, j, i_won)
        for a in (i, j):  # comparisons per arm, a self-comparison counting twice (batched._play, _self_tail)
            log[batched._arm_slot(log, batched.ARM_COMPARISONS, a)] += 1
        st[BS_POS] += 1
        if st[BS_POS] == st[BS_STEPS]:
            self._finish(state, t)

    def _finish(self, state, t):
        """The batch's last outcome has arrived after t comparisons: log it; if it is complete,
        the tests its function runs after ``batched._batch``; then plan the next batch."""
        st = state[B_SCALARS]
        kind, r, cand = int(st[BS_KIND]), int(st[BS_ROUND]), int(st[BS_CAND])
        n = int(st[BS_STEPS])
        batched._log_batch(state[B_LOG], n, kind, -1 if kind == batched.KIND_SELF else r,
                           cand if kind == batched.KIND_CANDIDATE else -1)
        if kind == batched.KIND_SELF or n != st[BS_PAIRS] * st[BS_SIZE]:  # a batch cut by T is never evaluated
            return
        if kind == batched.KIND_SEED_PAIRS:  # _scomp2_round line 6, then r(2) in the same round
            s = self._setting(state)
            st[BS_CAND] = batched._candidate(self._tests(state, s), s, state[B_SEED])
        else:
            self._round_end(state, kind, r, cand)
        if t < st[BS_T] or kind == batched.KIND_SEED_PAIRS:
            self._plan(state, t)
            if st[BS_STEPS] == 0:  # r(1) ended at T: _scomp2_round still logs r(2), with no comparison
                self._finish(state, t)

    @staticmethod
    def _tests(state, s):
        """The ``batched._State`` the tests read: all counts W, the batch's counts Wb, the KL
        counts (Wb with ``kl_counts`` = 1, else W), the pair lists and the log (no matrix,
        recorder or generator: the tests draw nothing)."""
        W, Wb = state[B_W], state[B_WB]
        Wk = Wb if s.kl_fresh else W
        return batched._State(None, None, None, W, Wb, Wk, state[B_PA], state[B_PB], state[B_LOG])

    def _round_end(self, state, kind, r, cand):
        """After a complete batch of ``_pcomp`` (Algorithm 1 lines 5-6: A eliminates A at γ),
        ``_scomp_round`` (Algorithm 2 lines 6-12: S eliminates A at 3γ_r, the switch test at
        3γ_r against S, A' at γ_r) or ``_scomp2_round`` r(2) (Algorithm 3 lines 8-14: i*_r
        eliminates A at 5γ_r, the switch test at 5γ_r against i*_r, A' at 3γ_r).  A switch at
        round r leaves A = A' and plays PCOMP(A', τ = r): the next batch is again q^r."""
        active, seed, st = state[B_ACTIVE], state[B_SEED], state[B_SCALARS]
        s = self._setting(state)
        tests = self._tests(state, s)
        if kind == batched.KIND_PCOMP:  # any b_i ∈ A eliminates b_j ∈ A
            batched._eliminate(tests, s, active, active.copy(), active.copy(), batched.GAMMA_1_SQ)
            st[BS_ROUND] += 1
            return
        if kind == batched.KIND_SEEDED:  # S as it was eliminates from A; the switch test against S as updated
            eliminators, victims, opponents = seed.copy(), active.copy(), seed
            levels = (batched.GAMMA_3_SQ, batched.GAMMA_1_SQ)
        else:  # i*_r eliminates the other arms of A, the switch test against i*_r
            opponents = np.arange(active.shape[0]) == cand
            eliminators, victims = opponents, active & ~opponents
            levels = (batched.GAMMA_5_SQ, batched.GAMMA_3_SQ)
            st[BS_CAND] = -1
        batched._eliminate(tests, s, active, eliminators, victims, levels[0])
        seed &= active  # in place: S loses the eliminated arms
        if batched._switch(tests, s, active, opponents, r, *levels):  # A ← A', logged
            st[BS_PCOMP] = 1
        else:
            st[BS_ROUND] += 1

    def recommend(self, state):
        return arms_of(state[B_ACTIVE])


#: Drivers of the built-in algorithms with a ``run`` kernel of their own.
RUN_DRIVERS = {
    "btm": BeatTheMeanDriver,
    "copeland_savage": CopelandSavageDriver,
    "condorcet_savage": CondorcetSavageDriver,
    "scb": ScalableCopelandDriver,
    "pcomp": BatchedDriver,
    "scomp": BatchedDriver,
    "scomp2": BatchedDriver,
}


def driver_for(spec: AlgorithmSpec) -> Driver:
    """The driver of a registered algorithm (error for a ``run`` kernel without one)."""
    if spec.steps is not None:
        return StepDriver(spec)
    if spec.policy is not None:
        return PythonPolicyDriver(spec)
    cls = RUN_DRIVERS.get(spec.name)
    if cls is None:
        raise ValueError(f"algorithm {spec.name!r} runs as one compiled loop (run=) that cannot be driven one "
                         "comparison at a time; give it step kernels (steps=) or a Python Policy (policy=)")
    return cls(spec)

