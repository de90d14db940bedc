"""Tests of CAR-Cond, CAR-Verify and CAR-Parallel (Chen et al. 2020, Algorithms 2–4)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from duelbench.cpe.condorcet import (
    car_cond,
    car_cond_check,
    car_parallel,
    car_verify,
    check_rounds,
    confidence_bounds,
    epoch_of_round,
)
from duelbench.cpe.instance import BipartiteInstance
from duelbench.cpe.matching import enumerate_matchings
from duelbench.cpe.oracles import lp_value


# --- instances ---------------------------------------------------------------------------------
def _instance(n, ell, edges, pref, name="hand"):
    """An instance from ``pref = {(i, j): p(e_i, e_j)}`` (i < j comparable)."""
    m = len(edges)
    P = np.zeros((m, m))
    np.fill_diagonal(P, 0.5)
    for (i, j), p in pref.items():
        P[i, j], P[j, i] = p, 1.0 - p
    return BipartiteInstance(n, ell, tuple(edges), P, name)


def condorcet_winner(inst):
    """The strict Condorcet matching by enumeration (f(M*, M, P) > 1/2 for all M ≠ M*, L85–L87)."""
    ms = enumerate_matchings(inst)
    winners = [a for a in ms if all(inst.f(a, b) > 0.5 for b in ms if not np.array_equal(a, b))]
    return winners[0] if winners else None


def planted(n, ell, margin, seed):
    """Complete K_{n,ℓ}: at each position a planted edge beats the others with 1/2 + margin,
    the other pairs uniform in [1/2 − margin, 1/2 + margin]; draws without a strict
    Condorcet matching are rejected."""
    rng = np.random.default_rng(seed)
    edges = [(c, s) for s in range(ell) for c in range(n)]
    while True:
        star = rng.permutation(n)[:ell]
        pref = {}
        for i, (ci, si) in enumerate(edges):
            for j in range(i + 1, len(edges)):
                cj, sj = edges[j]
                if sj != si:
                    continue
                if ci == star[si]:
                    pref[i, j] = 0.5 + margin
                elif cj == star[si]:
                    pref[i, j] = 0.5 - margin
                else:
                    pref[i, j] = rng.uniform(0.5 - margin, 0.5 + margin)
        inst = _instance(n, ell, edges, pref, f"planted{n}x{ell}")
        winner = condorcet_winner(inst)
        if winner is not None:
            planted_m = np.array([edges.index((star[s], s)) for s in range(ell)])
            assert np.array_equal(winner, planted_m)
            return inst, winner


# K_{2,2}: edges 0=(c0,s0), 1=(c1,s0), 2=(c0,s1), 3=(c1,s1); matchings {0,3} and {1,2}.
K22_EDGES = [(0, 0), (1, 0), (0, 1), (1, 1)]


def k22(p01=0.7, p23=0.4):
    return _instance(2, 2, K22_EDGES, {(0, 1): p01, (2, 3): p23}, "k22")


class CountingOracle:
    def __init__(self):
        self.calls = 0

    def __call__(self, *args):
        self.calls += 1
        return lp_value(*args)


def recomputed_samples(inst, res):
    """Σ_t Σ_j C(|E_j ∩ U_{t−1}|, 2) from the rounds at which edges left U."""
    total = 0
    for t in range(1, res.rounds + 1):
        alive = (res.decided_at == 0) | (res.decided_at >= t)
        for E in inst.position_edges:
            u = int(alive[E].sum())
            total += u * (u - 1) // 2
    return total


# --- Eq. 7–8, epochs and check schedules ---------------------------------------------------------
def test_confidence_bounds_by_hand():
    inst = k22()
    # pair (0,1): 3 of 4 duels won by e0; pair (2,3): none yet
    up, lo = confidence_bounds(inst, [3, 0], [4, 0], t=2, delta=0.1)
    c = math.sqrt(math.log(4 * 2 * 8 / 0.1) / 8)
    assert inst.K == 2
    assert up[0, 1] == pytest.approx(min(1, 0.75 + c)) and lo[0, 1] == pytest.approx(max(0, 0.75 - c))
    assert up[1, 0] == pytest.approx(min(1, 0.25 + c)) and lo[1, 0] == pytest.approx(max(0, 0.25 - c))
    assert (up[2, 3], up[3, 2], lo[2, 3], lo[3, 2]) == (1.0, 1.0, 0.0, 0.0)
    assert np.all(np.diag(up) == 0.5) and np.all(np.diag(lo) == 0.5)
    assert up[0, 2] == up[1, 3] == lo[0, 3] == 0.0
    # many duels: the bounds enclose p̂ tightly
    up, lo = confidence_bounds(inst, [700, 400], [1000, 1000], t=1, delta=0.5)
    c = math.sqrt(math.log(16) / 2000)
    assert up[0, 1] == pytest.approx(0.7 + c) and lo[3, 2] == pytest.approx(0.6 - c)


def test_epochs_and_check_rounds():
    assert [epoch_of_round(t) for t in (1, 4, 5, 16, 17, 64, 65)] == [1, 1, 2, 2, 3, 3, 4]
    assert list(check_rounds(6)) == [1, 2, 3, 4, 5, 6]
    geo = set(math.ceil(1.1**k) for k in range(200)) | {4**q + d for q in range(1, 10) for d in (0, 1)}
    assert list(check_rounds(5000, "geometric")) == sorted(x for x in geo if x <= 5000)
    assert list(check_rounds(70, "geometric", ratio=3.0)) == [1, 3, 4, 5, 9, 16, 17, 27, 64, 65]


# --- the classification step (Algorithm 2, lines 8–21) -------------------------------------------
def test_check_exact_values_and_r_typo():
    inst = k22()  # M* = {0, 3}: f = (0.7 + 0.6)/2 = 0.65
    out = car_cond_check(inst, (), (), range(4), inst.P, inst.P, 0.1)
    # e=0: InL = min(f(M*,M*), f(M*,{1,2})) = 0.5, ExU = min(0.35, 0.5) = 0.35
    assert out.values[0] == pytest.approx((0.5, 0.5, 0.35, 0.35), abs=1e-7)
    assert out.values[1] == pytest.approx((0.35, 0.35, 0.5, 0.5), abs=1e-7)
    # both rejections of the round kept (line 18 read as R_t ∪ {e}), stop at |A| = ℓ
    assert (out.accepted, out.rejected, out.oracle_calls, out.done) == ((0, 3), (1, 2), 16, True)
    out = car_cond_check(inst, (), (), range(4), inst.P, inst.P, 0.2)
    assert (out.accepted, out.rejected, out.oracle_calls, out.done) == ((), (), 16, False)


def test_check_with_confidence_matrices_by_hand():
    inst = k22()
    up = inst.P.copy()
    lo = inst.P.copy()
    for i, j in [(0, 1), (1, 0), (2, 3), (3, 2)]:
        up[i, j] += 0.1
        lo[i, j] -= 0.1
    # e=0: InL = min(0.5, (0.6 + 0.5)/2) = 0.5; ExU = min((0.4 + 0.5)/2, 0.5) = 0.45
    out = car_cond_check(inst, (), (), (0,), up, lo, 0.04)
    assert out.values[0][1] == pytest.approx(0.5, abs=1e-7) and out.values[0][2] == pytest.approx(0.45, abs=1e-7)
    assert out.accepted == (0,)
    assert car_cond_check(inst, (), (), (0,), up, lo, 0.06).accepted == ()


def test_check_infinite_values():
    inst = k22()
    out = car_cond_check(inst, (0,), (), (1, 2, 3), inst.P, inst.P, 0.1)
    inf = float("inf")
    # e=1 shares e0's position, e=2 its candidate: A ∪ {e} is infeasible, InU = InL = −∞
    assert out.values[1][:2] == (-inf, -inf) and out.values[2][:2] == (-inf, -inf)
    # e=3: no matching holds e0 and avoids e3, ExU = ExL = −∞
    assert out.values[3][2:] == (-inf, -inf)
    assert (out.accepted, out.rejected, out.done) == ((0, 3), (1, 2), True)


def test_check_rejects_overlapping_sets():
    inst = k22()
    with pytest.raises(ValueError):
        car_cond_check(inst, (0,), (0,), (1,), inst.P, inst.P, 0.1)


# --- CAR-Cond ------------------------------------------------------------------------------------
@pytest.mark.parametrize("check_every", ["round", "geometric"])
def test_car_cond_by_hand_two_arms(check_every):
    """ℓ = 1, two arms, e0 always wins: the run stops at the first check round t with
    min(1/2, 1 − c_t) > min(1/2, c_t) + ε_q (InL of e0 against ExU of e0)."""
    inst = _instance(2, 1, [(0, 0), (1, 0)], {(0, 1): 1.0}, "two-arms")
    delta = 0.1
    res = car_cond(inst, delta, 0, check_every=check_every)
    checks = 0
    for t in range(1, 10**4):
        if check_every == "geometric" and t not in {math.ceil(1.1**k) for k in range(120)} | {4**q + d for q in range(1, 8) for d in (0, 1)}:
            continue
        checks += 1
        c = math.sqrt(math.log(4 * t**3 / delta) / (2 * t))
        q = next(q for q in range(1, 20) if 4**q >= t)
        if min(0.5, max(0.0, 1 - c)) > min(0.5, min(1.0, c)) + 2.0**-q:
            break
    assert list(res.output) == [0] and res.rejected == ()
    assert (res.rounds, res.samples, res.checks, res.epochs) == (t, t, checks, q)
    assert res.oracle_calls == 8 * (checks - 1) + 4  # e0 is accepted first and the step stops
    assert not res.capped and not res.exhausted


def test_car_cond_single_matching():
    # position 0: c0, c1; position 1: c1 only, so ℳ = {{0, 2}}
    inst = _instance(2, 2, [(0, 0), (1, 0), (1, 1)], {(0, 1): 0.5}, "forced")
    res = car_cond(inst, 0.1, 0)
    assert list(res.output) == [0, 2] and res.rejected == (1,)
    assert (res.rounds, res.samples, res.checks, res.oracle_calls) == (1, 1, 1, 12)


@pytest.mark.parametrize("n, ell, seed, ratio", [(3, 2, 0, 1.1), (3, 2, 1, 1.1), (3, 2, 2, 1.1), (4, 3, 0, 1.3)])
def test_car_cond_finds_planted_winner(n, ell, seed, ratio):
    inst, winner = planted(n, ell, 0.3, seed)
    oracle = CountingOracle()
    res = car_cond(inst, 0.1, seed, oracle, check_every="geometric", ratio=ratio)
    assert np.array_equal(res.output, winner)
    assert res.samples == recomputed_samples(inst, res)
    assert res.oracle_calls == oracle.calls
    assert res.checks == len(check_rounds(res.rounds, "geometric", ratio))
    # the u_history agrees with the count formula as well
    prev, total = 0, 0
    for t, sizes in res.u_history:
        total += (t - prev) * sum(u * (u - 1) // 2 for u in sizes)
        prev = t
    assert total == res.samples
    assert set(res.rejected) == set(range(inst.m)) - set(winner) - {e for e in range(inst.m) if res.decided_at[e] == 0}


def test_car_cond_every_round_and_geometric_agree_on_winner():
    inst, winner = planted(3, 2, 0.45, 5)
    oracle = CountingOracle()
    every = car_cond(inst, 0.1, 11, oracle, check_every="round")
    assert np.array_equal(every.output, winner)
    assert every.checks == every.rounds
    assert every.samples == recomputed_samples(inst, every)
    assert every.oracle_calls == oracle.calls
    # every check but the last examines all of U (4 calls per edge)
    undecided = [sum(sizes) for _, sizes in every.u_history]
    last_accepted = max(e for e in every.output if every.decided_at[e] == every.rounds)
    alive_last = [e for e in range(inst.m) if every.decided_at[e] in (0, every.rounds)]
    examined_last = sum(1 for e in alive_last if e <= last_accepted)
    assert every.oracle_calls == 4 * sum(undecided[:-1]) + 4 * examined_last
    geo = car_cond(inst, 0.1, 11, check_every="geometric")
    assert np.array_equal(geo.output, winner)
    assert geo.checks < every.checks


def test_car_cond_single_position_condorcet_arm():
    # arm 2 beats every arm; the others form a cycle 0 > 1 > 3 > 0
    edges = [(c, 0) for c in range(4)]
    pref = {(0, 1): 0.7, (1, 3): 0.7, (0, 3): 0.3, (0, 2): 0.2, (1, 2): 0.2, (2, 3): 0.8}
    inst = _instance(4, 1, edges, pref, "arms")
    assert list(condorcet_winner(inst)) == [2]
    res = car_cond(inst, 0.1, 3, check_every="geometric")
    assert list(res.output) == [2]
    assert res.samples == recomputed_samples(inst, res)


def test_car_cond_deterministic_and_capped():
    inst, _ = planted(3, 1, 0.4, 0)
    a = car_cond(inst, 0.1, 7, check_every="geometric", ratio=2.0)
    b = car_cond(inst, 0.1, np.random.default_rng(np.random.SeedSequence(7)), check_every="geometric", ratio=2.0)
    assert (a.samples, a.rounds, a.oracle_calls) == (b.samples, b.rounds, b.oracle_calls)
    assert np.array_equal(a.output, b.output) and np.array_equal(a.decided_at, b.decided_at)
    capped = car_cond(inst, 0.1, 7, check_every="geometric", ratio=2.0, max_rounds=3)
    assert capped.capped and capped.output is None and capped.rounds == 3
    assert capped.samples == 3 * 3  # 3 rounds × C(3, 2) pairs (nothing decided that early)


# --- CAR-Verify ----------------------------------------------------------------------------------
def test_car_verify_confirms_true_and_refutes_wrong_hypothesis():
    inst, winner = planted(3, 2, 0.4, 1)
    ok = car_verify(inst, 0.001, 0, hypothesis=winner)
    assert np.array_equal(ok.output, winner) and not ok.error
    assert ok.cond_samples == 0 and ok.samples == ok.verify_samples == ok.steps - 1 > 0
    others = [m for m in enumerate_matchings(inst) if not np.array_equal(m, winner)]
    for wrong in others[:3]:
        bad = car_verify(inst, 0.001, 1, hypothesis=wrong)
        assert bad.error and bad.output is None and np.array_equal(bad.hypothesis, wrong)
        assert bad.verify_samples > 0


def test_car_verify_unique_matching_needs_no_verification():
    inst = _instance(2, 2, [(0, 0), (1, 0), (1, 1)], {(0, 1): 0.3}, "forced")
    res = car_verify(inst, 0.001, 0)
    assert list(res.output) == [0, 2]
    assert (res.cond_samples, res.verify_samples, res.steps) == (1, 0, 1)


def test_car_verify_full_run():
    inst, winner = planted(3, 2, 0.4, 2)
    res = car_verify(inst, 0.001, 4, check_every="geometric", ratio=2.0)
    assert np.array_equal(res.output, winner) and not res.error
    assert np.array_equal(res.cond.output, winner) and res.cond.delta == 0.01
    assert res.samples == res.cond.samples + res.verify_samples


# --- CAR-Parallel --------------------------------------------------------------------------------
def test_car_parallel_finds_winner_and_schedule():
    inst, winner = planted(3, 2, 0.4, 3)
    delta = 0.005
    res = car_parallel(inst, delta, 21, check_every="geometric", ratio=2.0)
    assert np.array_equal(res.output, winner) and not res.capped
    k_star, T = res.answered_by, res.steps
    assert res.samples == sum(res.samples_per_instance)
    assert res.answer.samples == res.samples_per_instance[k_star]
    # instance k has a turn at every multiple of 2^k; within step T those after k* had none
    for k, granted in enumerate(res.samples_per_instance):
        if k in res.errors or k in res.failed:
            continue
        assert granted == (T if k <= k_star else T - 1) // 2**k
    started = [k for k in range(64) if 2**k < T or (2**k == T and k <= k_star)]
    assert len(res.samples_per_instance) == len(started)
    # the answering instance's run does not depend on the schedule: same as CAR-Verify alone
    child = np.random.SeedSequence(21).spawn(k_star + 1)[k_star]
    alone = car_verify(inst, delta / 2 ** (k_star + 1), np.random.default_rng(child), check_every="geometric",
                       ratio=2.0)
    assert np.array_equal(alone.output, res.output) and alone.samples == res.answer.samples


def test_car_parallel_deterministic():
    inst = _instance(3, 1, [(0, 0), (1, 0), (2, 0)], {(0, 1): 0.1, (0, 2): 0.2, (1, 2): 0.9}, "three")
    a = car_parallel(inst, 0.001, 5, check_every="geometric", ratio=2.0)
    b = car_parallel(inst, 0.001, np.random.SeedSequence(5), check_every="geometric", ratio=2.0)
    assert list(a.output) == [1]
    assert (a.samples, a.steps, a.answered_by, a.samples_per_instance, a.errors) == \
        (b.samples, b.steps, b.answered_by, b.samples_per_instance, b.errors)


# --- option validation ---------------------------------------------------------------------------
def test_option_validation():
    inst = k22()
    for bad in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError):
            car_cond(inst, bad, 0)
    with pytest.raises(ValueError):
        car_cond(inst, 0.1, 0, check_every="epoch")
    with pytest.raises(ValueError):
        car_cond(inst, 0.1, 0, check_every="geometric", ratio=1.0)
    with pytest.raises(ValueError):
        car_cond(inst, 0.1, 0, max_rounds=0)
    with pytest.raises(TypeError):
        car_cond(inst, 0.1, None)
    with pytest.raises(TypeError):
        car_cond(inst, 0.1, 0, oracle=None)
    lone = BipartiteInstance(1, 1, ((0, 0),), np.array([[0.5]]), "lone")  # K = 0
    with pytest.raises(ValueError):
        car_cond(lone, 0.1, 0)
    with pytest.raises(ValueError):
        car_verify(inst, 0.01, 0)  # δ must be below δ0 = 0.01
    with pytest.raises(ValueError):
        car_verify(inst, 0.001, 0, hypothesis=[0, 1])  # two edges at position 0
    with pytest.raises(ValueError):
        car_verify(inst, 0.001, 0, hypothesis=[1, 2, 3])
    with pytest.raises(ValueError):
        car_verify(inst, 0.001, 0, max_steps=0)
    with pytest.raises(ValueError):
        car_parallel(inst, 0.05, 0)
    with pytest.raises(TypeError):
        car_parallel(inst, 0.001, "seed")


def test_seed_forms():
    """Seeds: an integer, a SeedSequence or a Generator; booleans, strings and None are refused."""
    inst = _instance(3, 1, [(0, 0), (1, 0), (2, 0)], {(0, 1): 0.1, (0, 2): 0.2, (1, 2): 0.9}, "three")
    for bad in (True, False, None, "3", 1.0):
        with pytest.raises(TypeError):
            car_cond(inst, 0.1, bad)
        with pytest.raises(TypeError):
            car_parallel(inst, 0.001, bad)
    a = car_cond(inst, 0.1, np.int64(4), check_every="geometric")
    b = car_cond(inst, 0.1, np.random.SeedSequence(4), check_every="geometric")
    assert (a.samples, a.rounds) == (b.samples, b.rounds)
    root = np.random.SeedSequence(int(np.random.default_rng(9).integers(2**63)))
    c = car_parallel(inst, 0.001, np.random.default_rng(9), check_every="geometric", ratio=2.0)
    d = car_parallel(inst, 0.001, root, check_every="geometric", ratio=2.0)
    assert (c.samples, c.steps, c.samples_per_instance) == (d.samples, d.steps, d.samples_per_instance)
