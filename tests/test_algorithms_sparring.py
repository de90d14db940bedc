"""Sparring (Ailon, Karnin & Joachims, ICML 2014) with UCB machines: its behaviour on
utility-based instances, the independence of its two machines, the documented conventions,
parameter validation, and the compiled path against the pure-Python path."""

import math
import warnings

import numpy as np
import pytest

import duelbench
from duelbench.algorithms import sparring
from duelbench.algorithms.registry import canonical_params, get_algorithm

from _engine_helpers import ARXIV, MULTISOL, run_without_jit


def _linear(u):
    """Linear link of Ailon et al.: P_ij = (1 + u_i − u_j)/2."""
    u = np.asarray(u, dtype=np.float64)
    return (1.0 + u[:, None] - u[None, :]) / 2.0


def _btl(u):
    """Bradley–Terry–Luce: P_ij = u_i/(u_i + u_j)."""
    u = np.asarray(u, dtype=np.float64)
    return u[:, None] / (u[:, None] + u[None, :])


LINEAR6 = _linear([0.9, 0.7, 0.6, 0.5, 0.3, 0.1])  # arm 0 best, gaps p_0j − 1/2 ≥ 0.1
BTL6 = _btl([3.0, 2.0, 1.5, 1.0, 0.7, 0.5])         # arm 0 best, p_01 = 0.6


def _sim(P, T, runs, seed=0, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return duelbench.simulate("sparring", P, T, runs, seed=seed, **kw)


# --------------------------------------------------------------------------- utility-based instances
@pytest.mark.parametrize("name,P", [("linear", LINEAR6), ("btl", BTL6)])
def test_both_machines_concentrate_on_the_best_arm(name, P):
    """Utility-based preferences (the setting of Ailon et al.): the fraction of steps with
    a(1) = a(2) = the best arm grows over the run and exceeds 0.9 at its end, for each machine
    separately as for the pair."""
    T = 50_000
    res = _sim(P, T, 3, seed=1, record_pairs=True, permute=False)
    windows = [(T // 100, T // 10), (T // 10, T // 2), (T // 2, T), (9 * T // 10, T)]
    for pairs in res.pairs:
        both = (pairs[:, 0] == 0) & (pairs[:, 1] == 0)
        frac = [both[a:b].mean() for a, b in windows]
        assert frac[0] < frac[1] < frac[2], (name, frac)
        assert frac[3] > 0.9, (name, frac)
        for m in (0, 1):
            assert (pairs[9 * T // 10:, m] == 0).mean() > 0.93, (name, m)


def test_regret_grows_sublinearly_on_a_utility_instance():
    """[R(T) − R(T/2)] / R(T/2) < 0.5 at T = 10^5 (≈ 0.06 for logarithmic growth, 1 for linear);
    Random, the negative control, fails."""
    T = 100_000

    def growth(alg, runs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = duelbench.simulate(alg, LINEAR6, T, runs, seed=0, checkpoints=[T // 2, T])
        half, full = r.regret.mean(axis=0)
        return (full - half) / half

    assert growth("sparring", 4) < 0.5
    assert growth("random", 2) >= 0.5


# --------------------------------------------------------------------------- the two machines
def _replay(P, T, seed, alpha=3.0, check=None):
    """Run the kernels on P (no relabelling); returns the state and the (a1, a2, w) history."""
    K = P.shape[0]
    state = sparring.init(K, np.array([alpha]))
    rng = np.random.default_rng(seed)
    hist = []
    for t in range(1, T + 1):
        if check is not None:
            check(state, t)
        i, j = sparring.select(state, t, rng)
        w = bool(rng.random() < P[i, j])
        sparring.update(state, i, j, w, t)
        hist.append((i, j, w))
    return state, hist


@pytest.mark.parametrize("P", [LINEAR6, MULTISOL, ARXIV])
def test_each_machine_counts_only_its_own_proposals_and_rewards(P):
    """n_1(k) = #{t : a(1) = k}, S_1(k) = #{t : a(1) = k, a(1) won}; n_2(k) = #{t : a(2) = k},
    S_2(k) = #{t : a(2) = k, a(1) lost} — also when a(1) = a(2), whose coin rewards exactly one
    machine; so S_1 + S_2 sums to T."""
    T = 4000
    (plays, rewards, _), hist = _replay(P, T, 3)
    K = P.shape[0]
    a1 = np.array([h[0] for h in hist])
    a2 = np.array([h[1] for h in hist])
    w = np.array([h[2] for h in hist])
    assert np.any(a1 == a2) and np.any(a1 != a2)
    for k in range(K):
        assert plays[0, k] == np.sum(a1 == k) and plays[1, k] == np.sum(a2 == k)
        assert rewards[0, k] == np.sum((a1 == k) & w) and rewards[1, k] == np.sum((a2 == k) & ~w)
    assert rewards.sum() == T
    same = a1 == a2
    assert 0 < np.sum(w[same]) < np.sum(same)  # the self-duel coin goes both ways


def test_each_proposal_depends_only_on_its_machines_statistics():
    """a(2) does not change when machine 1's statistics are replaced (and vice versa), and
    exchanging the two machines' statistics exchanges a(1) and a(2)."""
    g = np.random.default_rng(0)
    for case in range(300):
        K = int(g.integers(2, 7))
        t = int(g.integers(1, 10_000))
        n = g.integers(0, 20, size=(2, K)).astype(np.float64)
        S = np.minimum(g.integers(0, 20, size=(2, K)), n)
        state = sparring.init(K, np.array([3.0]))
        state[0][:], state[1][:] = n, S
        a1, a2 = sparring.select(state, t, None)
        other = sparring.init(K, np.array([3.0]))
        n2 = g.integers(0, 20, size=K).astype(np.float64)
        other[0][:], other[1][:] = np.vstack([n2, n[1]]), np.vstack([np.minimum(g.integers(0, 20, size=K), n2), S[1]])
        assert sparring.select(other, t, None)[1] == a2, case
        other[0][:], other[1][:] = np.vstack([n[0], n2]), np.vstack([S[0], np.minimum(g.integers(0, 20, size=K), n2)])
        assert sparring.select(other, t, None)[0] == a1, case
        swapped = sparring.init(K, np.array([3.0]))
        swapped[0][:], swapped[1][:] = n[::-1], S[::-1]
        assert sparring.select(swapped, t, None) == (a2, a1), case


# --------------------------------------------------------------------------- documented conventions
def test_index_formula():
    """index = S/n + sqrt((α + 2) ln t / (2 n)), 1 for an unplayed arm: set two arms' statistics
    so that their indices straddle each other and check the choice against the formula."""
    t, alpha = 1000, 3.0
    for n0, s0, n1, s1 in [(40, 30, 10, 4), (40, 30, 100, 80), (7, 0, 3, 1), (500, 400, 499, 400)]:
        state = sparring.init(2, np.array([alpha]))
        state[0][0] = [n0, n1]
        state[1][0] = [s0, s1]
        idx = [s / n + math.sqrt((alpha + 2) * math.log(t) / (2 * n)) for s, n in ((s0, n0), (s1, n1))]
        assert idx[0] != idx[1]
        assert sparring.select(state, t, None)[0] == int(np.argmax(idx))
    state = sparring.init(3, np.array([alpha]))
    state[0][0] = [5, 0, 5]
    state[1][0] = [5, 0, 5]  # index 1 + sqrt(2.5 ln t / 5) > 1 for t ≥ 2: arm 0 (lowest of the tie)
    assert sparring.select(state, 2, None)[0] == 0
    state[1][0] = [0, 0, 0]  # index sqrt(2.5 ln 1000 / 5) ≈ 1.86 > 1: still played arms first
    assert sparring.select(state, 1000, None)[0] == 0
    state[0][0] = [100, 0, 100]  # index sqrt(2.5 ln 1000 / 100) ≈ 0.42 < 1: the unplayed arm 1
    assert sparring.select(state, 1000, None)[0] == 1


def test_unplayed_arms_have_index_one_and_ties_go_to_the_lowest_arm():
    """At t = 1 both machines propose arm 0.  A machine proposes an unplayed arm only when every
    played arm's index is below 1, and then the lowest unplayed arm; among equal indices the
    lowest arm wins."""
    seen = {"unplayed": 0}

    def check(state, t):
        plays, rewards, params = state
        level = (params[0] + 2.0) * math.log(t) / 2.0
        pair = sparring.select(state, t, None)
        if t == 1:
            assert pair == (0, 0)
        for m in (0, 1):
            n, s = plays[m], rewards[m]
            idx = np.where(n > 0, s / np.maximum(n, 1) + np.sqrt(level / np.maximum(n, 1)), 1.0)
            assert pair[m] == int(np.flatnonzero(idx == idx.max())[0])
            if n[pair[m]] == 0 and n.any():
                seen["unplayed"] += 1
                assert np.all(idx[n > 0] < 1.0)
                assert pair[m] == int(np.flatnonzero(n == 0)[0])

    _replay(LINEAR6, 3000, 0, check=check)
    assert seen["unplayed"] >= 2 * (LINEAR6.shape[0] - 1) - 2


def test_no_random_draw_besides_the_duels():
    """Sparring itself is deterministic: select never touches the generator."""
    rng = np.random.default_rng(0)
    state = sparring.init(5, np.array([3.0]))
    before = rng.bit_generator.state
    for t in range(1, 200):
        i, j = sparring.select(state, t, rng)
        sparring.update(state, i, j, (t * 7919) % 3 == 0, t)
    assert rng.bit_generator.state == before


# --------------------------------------------------------------------------- parameters
def test_default_alpha_is_that_of_the_authors_code():
    """Wu & Liu print no parameter for Sparring (paper 004 L892–897); α = 3.0 is the value of
    their experiment code (``sbm_scale_factor``), stated in the module docstring."""
    assert get_algorithm("sparring").defaults == {"alpha": 3.0}
    assert "sbm_scale_factor = 3.0" in sparring.__doc__
    assert sparring.UNPLAYED_INDEX == 1.0


@pytest.mark.parametrize("alpha", [0.0, -1.0, -2.5])
def test_alpha_must_be_positive(alpha):
    with pytest.raises(ValueError, match="alpha must be > 0"):
        canonical_params("sparring", {"alpha": alpha})


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "x"])
def test_alpha_must_be_a_finite_number(bad):
    with pytest.raises(ValueError, match="alpha"):
        canonical_params("sparring", {"alpha": bad})


def test_unknown_parameter_is_rejected():
    with pytest.raises(ValueError, match="no parameter"):
        canonical_params("sparring", {"gamma": 1.0})


def test_small_positive_alpha_is_accepted():
    assert canonical_params("sparring", {"alpha": 0.01}) == {"alpha": 0.01}


# --------------------------------------------------------------------------- code paths
PY_SCRIPT = r"""
import json, sys, numpy as np, warnings
warnings.simplefilter("ignore")
from duelbench import simulate
out = {}
for name, P in json.loads(sys.argv[1]).items():
    for alpha in (3.0, 1.0):
        r = simulate("sparring", np.array(P), 6000, 2, seed=4, record_pairs=True, alpha=alpha)
        out[f"{name}/{alpha}"] = {"pairs": r.pairs.tolist(), "regret": r.regret.tolist()}
print(json.dumps(out))
"""


def test_compiled_path_equals_python_path():
    """NUMBA_DISABLE_JIT=1 (plain Python with NumPy's Generator) gives the same pairs and
    bit-identical regret sums, at two values of α."""
    cases = {"linear6": LINEAR6, "arxiv": ARXIV}
    py = run_without_jit(PY_SCRIPT, {k: v.tolist() for k, v in cases.items()})
    for name, P in cases.items():
        for alpha in (3.0, 1.0):
            r = _sim(P, 6000, 2, seed=4, record_pairs=True, alpha=alpha)
            assert np.array_equal(r.pairs, np.array(py[f"{name}/{alpha}"]["pairs"])), (name, alpha)
            assert np.array_equal(r.regret, np.array(py[f"{name}/{alpha}"]["regret"])), (name, alpha)


def test_machine_without_arms_proposes_none():
    """``sbm_choose`` returns −1 when there is no arm to propose (the initial ``arm``), and the
    lowest index among equal indices otherwise (unplayed arms all have index 1)."""
    assert sparring.sbm_choose(np.zeros((2, 0)), np.zeros((2, 0)), 0, 1.0) == -1
    assert sparring.sbm_choose(np.zeros((2, 3)), np.zeros((2, 3)), 1, 1.0) == 0
    plays = np.array([[4.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    assert sparring.sbm_choose(plays, np.zeros((2, 3)), 0, 1.0) == 1  # 0 + sqrt(1/4) < 1: arm 1
