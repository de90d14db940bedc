"""Every built-in algorithm used online (duelbench.online): the policy selects exactly the pairs
``simulate`` records when fed the engine's duel outcomes, a saved policy continues exactly, the
batch interface, recommendations, and one clear line for every bad call."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import duelbench
from duelbench.algorithms import batched, registry
from duelbench.algorithms.batched import batch_log
from duelbench.algorithms.registry import canonical_params, params_array
from duelbench.engine.seeding import run_rng
from duelbench.engine.simulate import permuted_instance, regret_stack
from duelbench.online import FORMAT_VERSION, OnlinePolicy, PolicyFileError, load_policy, policy
from duelbench.online import drivers
from duelbench.online.state_file import flatten

ROOT = Path(__file__).resolve().parent.parent
BUILT_IN = sorted(name for name in registry.list_algorithms()
                  if Path(registry.get_algorithm(name).module_file).parent.name == "algorithms")
NEEDS_HORIZON = ["btm", "condorcet_savage", "copeland_savage", "pcomp", "scomp", "scomp2"]
BATCHED = ["pcomp", "scomp", "scomp2"]


def btl(*utilities) -> duelbench.PreferenceMatrix:
    """Bradley–Terry–Luce matrix P_ij = u_i / (u_i + u_j): arm 0 is the Condorcet winner."""
    u = np.array(utilities, dtype=np.float64)
    return duelbench.PreferenceMatrix(u[:, None] / (u[:, None] + u[None, :]))


EASY5 = btl(100, 30, 10, 3, 1)
MILD5 = btl(8, 4, 2, 1, 0.5)
EASY2 = btl(20, 1)


def engine_outcome(p: OnlinePolicy, Pv: np.ndarray, i: int, j: int) -> bool:
    """The outcome the engine's duel draws at this step: the next uniform of the run's stream,
    read from a copy of the policy's generator (the policy consumes that draw at update)."""
    return bool(copy.deepcopy(p.rng).random() < Pv[i, j])


def drive(p: OnlinePolicy, Pv: np.ndarray, steps: int) -> list[tuple[int, int]]:
    pairs = []
    for _ in range(steps):
        i, j = p.select()
        p.update(i, j, engine_outcome(p, Pv, i, j))
        pairs.append((i, j))
    return pairs


def policy_pairs_vs_simulate(name, P, T, seed, run=0, **params):
    """(policy's pairs in P's labels, simulate's recorded pairs) for run ``run``."""
    res = duelbench.simulate(name, P, T, 1, seed=seed, run_start=run, record_pairs=True, **params)
    perm, Pp, _ = permuted_instance(P, regret_stack(P), seed, run)
    p = policy(name, P.K, seed=seed, horizon=T, dataset=P.identity, run=run, **params)
    pairs = perm[np.array(drive(p, Pp, T))]
    return pairs, res.pairs[0], p


def assert_same_pairs(mine, engine):
    differ = np.flatnonzero((mine != engine).any(axis=1))
    assert differ.size == 0, f"first difference at step {differ[0] + 1}: {mine[differ[0]]} vs {engine[differ[0]]}"


def self_runs(pairs) -> list[tuple[bool, int]]:
    """Maximal runs of self-comparisons / other pairs: [(is_self, length), ...]."""
    s = pairs[:, 0] == pairs[:, 1]
    edges = np.flatnonzero(np.diff(s.astype(np.int8))) + 1
    starts = np.concatenate([[0], edges])
    ends = np.concatenate([edges, [len(s)]])
    return [(bool(s[a]), int(b - a)) for a, b in zip(starts, ends)]


# --------------------------------------------------------------------------- equivalence with simulate
def test_every_built_in_algorithm_is_covered():
    assert len(BUILT_IN) == 16 and set(NEEDS_HORIZON) <= set(BUILT_IN)


@pytest.mark.parametrize("name", BUILT_IN)
def test_policy_selects_the_pairs_simulate_records(name):
    """Fed the engine's duel outcomes, the policy reproduces run 0 of simulate on the printed
    5-arm MSLR matrix (arms permuted by the run, as simulate does by default)."""
    P = duelbench.load_matrix("mslr5_condorcet_printed")
    mine, engine, p = policy_pairs_vs_simulate(name, P, 2000, seed=3)
    assert_same_pairs(mine, engine)
    assert p.t == 2000 and p.comparisons.sum() == 2000


def test_run_index_and_unpermuted_instance():
    """``run=`` selects the engine's run stream; with ``permute=False`` the labels are P's own."""
    P = duelbench.load_matrix("multisol")
    mine, engine, _ = policy_pairs_vs_simulate("ccb", P, 1500, seed=11, run=4)
    assert_same_pairs(mine, engine)
    res = duelbench.simulate("rucb", P, 1500, 1, seed=2, permute=False, record_pairs=True)
    p = policy("rucb", P.K, seed=2, dataset=P.identity)
    assert_same_pairs(np.array(drive(p, P.values, 1500)), res.pairs[0])
    other = policy("rucb", P.K, seed=2, dataset=P.identity, run=1)
    assert not np.array_equal(np.array(drive(other, P.values, 1500)), res.pairs[0])


@pytest.mark.parametrize("name, P, T, params", [
    ("btm", EASY5, 3000, {"confidence_factor": 0.5}),
    ("copeland_savage", EASY5, 3000, {}),
    ("condorcet_savage", EASY5, 3000, {}),
    ("condorcet_savage", EASY5, 3000, {"assume_condorcet_winner": 0.0}),
])
def test_explore_then_exploit_through_the_commitment(name, P, T, params):
    """Past the end of exploration the engine adds the exploitation in closed form, without
    draws; the policy hands out the same self-comparison and consumes no draw."""
    mine, engine, _ = policy_pairs_vs_simulate(name, P, T, seed=3, **params)
    assert_same_pairs(mine, engine)
    runs = self_runs(mine)
    assert runs[-1][0] and runs[-1][1] > 500, runs[-3:]  # committed well before T


def test_scb_through_exploitation_into_the_next_phase():
    """SCB (Algorithm 3): phase 3's exploration stops early, (a, a) fills the phase's 256 queries
    unobserved, and phase 4 starts exploring again — the policy keeps the engine's stream."""
    mine, engine, _ = policy_pairs_vs_simulate("scb", EASY2, 1000, seed=3)
    assert_same_pairs(mine, engine)
    runs = self_runs(mine)
    assert [s for s, _ in runs[:4]] == [False, True, False, True], runs
    assert sum(n for _, n in runs[:2]) == 4 + 16 + 256  # phases 1-3 end at step 276


BATCHED_CASES = [  # (algorithm, matrix, seed, params, horizon)
    ("pcomp", MILD5, 0, {}, 3000),
    ("pcomp", MILD5, 0, {"elimination": 1.0}, 3000),
    ("scomp", MILD5, 3, {"all_kl": 1.0}, 3000),
    ("scomp", EASY5, 2, {"all_kl": 1.0}, 3000),
    ("scomp", EASY5, 0, {}, 3000),
    ("scomp", MILD5, 4, {}, 3000),
    ("scomp", duelbench.load_matrix("mslr5_condorcet_printed"), 3, {"threshold": 1.0}, 3000),
    ("scomp", MILD5, 2, {"kl_counts": 1.0}, 3000),
    ("scomp", MILD5, 27, {"elimination": 1.0}, 3000),
    ("scomp2", MILD5, 1, {"all_kl": 1.0}, 3000),
    ("scomp2", MILD5, 2, {"all_kl": 1.0}, 3000),
    ("scomp2", MILD5, 0, {}, 3000),
    ("scomp2", MILD5, 2, {"elimination": 1.0}, 3000),
    ("scomp2", EASY5, 11, {"elimination": 1.0}, 8000),
    ("scomp2", EASY5, 0, {"elimination": 1.0}, 8000),
    ("scomp2", MILD5, 5, {"threshold": 2.0, "delta": 1.0, "rounding": 1.0}, 3000),
]


def engine_batch_log(name, P, seed, params, T, raw=False):
    """The batch log of run 0 of ``simulate(name, P, T, seed=seed, **params)``: a
    :class:`~duelbench.algorithms.batched.BatchLog`, or with ``raw`` the log array of
    :func:`~duelbench.algorithms.batched.run_logged`."""
    _, Pp, _ = permuted_instance(P, regret_stack(P), seed, 0)
    canon = canonical_params(name, params)
    rng = run_rng(seed, P.identity, name, canon, 0)
    if not raw:
        return batch_log(name, Pp, T, params, rng)
    log = np.zeros(batched.log_length(P.K, int(canon["batches"])), dtype=np.int64)
    batched.run_logged(np.ascontiguousarray(Pp), np.zeros((1, P.K, P.K)), np.array([T], dtype=np.int64),
                       params_array(name, canon), rng, False, batched.NAMES.index(name), log)
    return log


def assert_engine_batch_log(p, name, P, seed, params, T):
    """The batch log the policy's driver keeps is the engine's, but for the good-event counts
    (they need the true matrix: the driver leaves them 0)."""
    raw = engine_batch_log(name, P, seed, params, T, raw=True)
    mine = p._state[drivers.B_LOG].copy()
    good_event = [batched.L_ESTIMATES, batched.L_INCORRECT]
    assert not mine[good_event].any()
    mine[good_event] = raw[good_event]
    assert np.array_equal(mine, raw)


@pytest.mark.parametrize("name, P, seed, params, T", BATCHED_CASES)
def test_batched_algorithms_through_their_batches(name, P, seed, params, T):
    """PCOMP, SCOMP, SCOMP2 driven one comparison at a time through eliminations, switches to
    PCOMP, SCOMP2's candidate rounds and the last batch of self-comparisons; the driver's batch
    log is the engine's (batches, eliminations, switch, comparisons per arm), but for the
    good-event counts that need the true matrix."""
    mine, engine, p = policy_pairs_vs_simulate(name, P, T, seed=seed, **params)
    assert_same_pairs(mine, engine)
    log = engine_batch_log(name, P, seed, params, T)
    assert log.batches >= 3
    kept = range(P.K) if log.switch_set is None else log.switch_set  # a switch keeps A' only
    assert p.recommend() == tuple(a for a in kept if a not in log.eliminated)
    assert_engine_batch_log(p, name, P, seed, params, T)


#: The function of batched.py that plays each kind of batch (the driver splits each one around
#: the outcomes: its pairs before the batch, its tests after it).
PLAYED_BY = {"pcomp": "_pcomp", "seeded": "_scomp_round", "seed_pairs": "_scomp2_round r(1)",
             "candidate": "_scomp2_round r(2)", "self": "_self_tail"}


def test_batched_cases_reach_every_branch():
    """The cases above pass through every function of batched.py that plays batches and every
    test run after one: ``_eliminate`` with the KL and the γ-rule after the batches of
    ``_pcomp``, ``_scomp_round`` and ``_scomp2_round``; ``_switch`` with the γ and the KL tests
    (``all_kl``) after both rounds; ``_candidate`` after r(1) and SCOMP2's |S| = 1 (no r(1));
    ``_pcomp`` after the switches of both rounds and after an empty seed set
    (``_draw_seed_set``); ``_self_tail``."""
    seen = set()
    for name, P, seed, params, T in BATCHED_CASES:
        log = engine_batch_log(name, P, seed, params, T)
        rule = "KL" if params.get("elimination", 0.0) == 0.0 else "gamma"
        tests = "KL" if rule == "KL" and params.get("all_kl") == 1.0 else "gamma"
        kinds = log.batch_kinds
        seen.update(PLAYED_BY[k] for k in kinds)
        seen.update(f"_eliminate {rule} after {PLAYED_BY[kinds[b]]}" for b in log.eliminated.values())
        for b, k in enumerate(kinds):
            if k == "candidate":
                seen.add("_candidate" if b > 0 and kinds[b - 1] == "seed_pairs" else "_scomp2_round |S| = 1")
        if log.seed_empty:
            seen.add("_draw_seed_set: S empty")
        elif log.switch_round >= 1:
            seen.add(f"_switch {tests} after {PLAYED_BY['seeded' if name == 'scomp' else 'candidate']}")
            seen.update({f"_pcomp after a {name} switch"} if "pcomp" in kinds else set())
    assert {"_pcomp", "_scomp_round", "_scomp2_round r(1)", "_scomp2_round r(2)", "_self_tail", "_candidate",
            "_scomp2_round |S| = 1", "_draw_seed_set: S empty",
            "_eliminate KL after _pcomp", "_eliminate gamma after _pcomp",
            "_eliminate KL after _scomp_round", "_eliminate gamma after _scomp_round",
            "_eliminate KL after _scomp2_round r(2)", "_eliminate gamma after _scomp2_round r(2)",
            "_switch KL after _scomp_round", "_switch gamma after _scomp_round",
            "_switch KL after _scomp2_round r(2)", "_switch gamma after _scomp2_round r(2)",
            "_pcomp after a scomp switch", "_pcomp after a scomp2 switch"} <= seen, seen


def test_a_batch_cut_by_the_horizon_is_never_evaluated():
    """The horizon cuts PCOMP's first batch (10 pairs × 2): its outcomes eliminate no arm, even
    with the level log(Tδ) < 0 at which any estimate below 1/2 would."""
    p = policy("pcomp", 5, seed=0, horizon=15, threshold=1.0)
    drive(p, EASY5.values, 15)
    assert p.recommend() == (0, 1, 2, 3, 4)
    q = policy("pcomp", 5, seed=0, horizon=20, threshold=1.0)
    drive(q, EASY5.values, 20)
    assert len(q.recommend()) < 5


def test_scomp2_round_whose_first_batch_ends_at_the_horizon():
    """r(1) of SCOMP2's second round ends exactly at T = 12: ``_scomp2_round`` still chooses the
    candidate and logs r(2) with no comparison, and so does the driver."""
    mine, engine, p = policy_pairs_vs_simulate("scomp2", MILD5, 12, seed=1)
    assert_same_pairs(mine, engine)
    log = engine_batch_log("scomp2", MILD5, 1, {}, 12)
    assert log.batch_sizes == (2, 8, 2, 0) and log.batch_kinds[-1] == "candidate" and log.candidates[-1] >= 0
    assert_engine_batch_log(p, "scomp2", MILD5, 1, {}, 12)


def test_plug_in_policy_is_driven_through_the_same_interface(monkeypatch):
    """A pure-Python plug-in (the Policy protocol) runs online too, with the engine's stream."""

    class LeaderPairs:
        def __init__(self, K, horizon, rng, spread):
            self.K, self.rng, self.wins = K, rng, np.zeros(K)

        def select(self, t):
            return int(np.argmax(self.wins)), int(self.rng.integers(self.K))

        def update(self, i, j, i_won, t):
            self.wins[i if i_won else j] += 1

        def recommend(self):
            return int(np.argmax(self.wins))

    registry.discover()
    spec = registry.AlgorithmSpec(name="leader_pairs_online", title="", reference="", defaults={"spread": 1.0},
                                  policy=LeaderPairs, module_file=__file__)
    monkeypatch.setitem(registry._REGISTRY, spec.name, spec)
    P = duelbench.load_matrix("cyclic")
    res = duelbench.simulate(spec.name, P, 400, 1, seed=5, permute=False, record_pairs=True)
    with pytest.raises(ValueError, match=r"^leader_pairs_online: .*pass horizon=T"):
        policy(spec.name, P.K, seed=5)
    p = policy(spec.name, P.K, seed=5, horizon=400, dataset=P.identity)
    assert_same_pairs(np.array(drive(p, P.values, 400)), res.pairs[0])
    assert p.recommend() == (int(np.argmax(p.wins.sum(axis=1))),)
    with pytest.raises(TypeError, match="pure-Python plug-in"):
        p.save("never.npz")


# --------------------------------------------------------------------------- save / restore
@pytest.mark.parametrize("name", BUILT_IN)
def test_saved_policy_continues_exactly(name, tmp_path):
    """Saved at step 700 with a pair waiting for its outcome, restored, continued: the same
    pairs, kernel state and generator state as an uninterrupted run."""
    T, n = 1500, 700
    whole = policy(name, 5, seed=1, horizon=T)
    pairs = drive(whole, EASY5.values, T)
    part = policy(name, 5, seed=1, horizon=T)
    first = drive(part, EASY5.values, n)
    i, j = part.select()
    path = part.save(tmp_path / name)
    assert path == tmp_path / f"{name}.npz"
    back = load_policy(path)
    assert (back.algorithm, back.K, back.horizon, back.t, back.pending) == (name, 5, T, n, ((i, j),))
    assert back.params == part.params
    assert np.array_equal(back.comparisons, part.comparisons) and np.array_equal(back.wins, part.wins)
    back.update(i, j, engine_outcome(back, EASY5.values, i, j))
    assert first + [(i, j)] + drive(back, EASY5.values, T - n - 1) == pairs
    assert back.rng.bit_generator.state == whole.rng.bit_generator.state
    a, b = [], []
    flatten(back._state, a)
    flatten(whole._state, b)
    assert len(a) == len(b)
    assert all(np.array_equal(x, y, equal_nan=x.dtype.kind == "f") for x, y in zip(a, b))  # NaN: unused slots
    assert back.recommend() == whole.recommend()


def test_saved_batch_in_flight_continues_exactly(tmp_path):
    whole = policy("scomp2", 5, seed=1, horizon=2000, all_kl=1.0)
    pairs = drive(whole, MILD5.values, 2000)
    part = policy("scomp2", 5, seed=1, horizon=2000, all_kl=1.0)
    done = drive(part, MILD5.values, 300)
    batch = part.select_batch()
    assert len(batch) > 3
    won = [engine_outcome(part, MILD5.values, *batch[0])]
    part.update_batch(batch[:1], won)
    back = load_policy(part.save(tmp_path / "flight.npz"))
    assert back.pending == tuple(map(tuple, batch[1:].tolist()))
    rest = []
    for i, j in batch[1:].tolist():
        back.update(i, j, engine_outcome(back, MILD5.values, i, j))
        rest.append((i, j))
    assert done + [tuple(batch[0])] + rest + drive(back, MILD5.values, 2000 - back.t) == pairs


def _rewrite_meta(path: Path, **changes) -> None:
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays.pop("meta")))
    meta.update(changes)
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)


def test_load_refuses_another_format_version(tmp_path):
    p = policy("rucb", 4, seed=0)
    drive(p, btl(4, 3, 2, 1).values, 10)
    path = p.save(tmp_path / "p.npz")
    _rewrite_meta(path, format=FORMAT_VERSION + 1)
    with pytest.raises(PolicyFileError) as err:
        load_policy(path)
    msg = str(err.value)
    assert "\n" not in msg and f"format version {FORMAT_VERSION + 1}" in msg
    assert f"reads version {FORMAT_VERSION}" in msg


def test_load_refuses_another_code_hash(tmp_path):
    p = policy("dts", 4, seed=0)
    drive(p, btl(4, 3, 2, 1).values, 10)
    path = p.save(tmp_path / "p.npz")
    _rewrite_meta(path, code_hash="0" * 64)
    with pytest.raises(PolicyFileError) as err:
        load_policy(path)
    msg = str(err.value)
    assert "\n" not in msg and "code hash 000000000000" in msg and "start a new policy" in msg


def test_load_refuses_a_damaged_state_and_other_files(tmp_path):
    p = policy("ccb", 4, seed=0)
    drive(p, btl(4, 3, 2, 1).values, 10)
    path = p.save(tmp_path / "p.npz")
    _rewrite_meta(path, K=5)
    with pytest.raises(PolicyFileError, match="does not have the layout"):
        load_policy(path)
    other = tmp_path / "other.npz"
    np.savez(other, x=np.zeros(3))
    with pytest.raises(PolicyFileError, match="not a policy file"):
        load_policy(other)
    with pytest.raises(PolicyFileError, match="no policy file"):
        load_policy(tmp_path / "missing.npz")


# --------------------------------------------------------------------------- batches
def test_select_batch_hands_out_the_rest_of_the_batch():
    """select_batch() = the next pairs select() would hand out one at a time; update_batch() in
    chunks gives the same run as update() one by one."""
    one = policy("scomp", 5, seed=3, horizon=3000, all_kl=1.0)
    many = policy("scomp", 5, seed=3, horizon=3000, all_kl=1.0)
    total = 0
    while many.t < 3000:
        batch = many.select_batch()
        expected = []
        for _ in range(len(batch)):
            i, j = one.select()
            one.update(i, j, engine_outcome(one, MILD5.values, i, j))
            expected.append((i, j))
        assert batch.tolist() == [list(x) for x in expected]
        outcomes = []
        probe = copy.deepcopy(many.rng)
        for i, j in batch:
            outcomes.append(bool(probe.random() < MILD5.values[i, j]) if i != j else True)
        half = len(batch) // 2
        many.update_batch(batch[:half], outcomes[:half])
        if len(batch) - half > 0:
            with pytest.raises(RuntimeError, match="still wait"):
                many.select()
            many.update_batch(batch[half:], np.array(outcomes[half:]))
        total += 1
    assert total >= 5
    assert one.rng.bit_generator.state == many.rng.bit_generator.state
    assert np.array_equal(one.wins[np.eye(5) == 0], many.wins[np.eye(5) == 0])


def test_select_batch_of_a_step_algorithm_is_one_pair():
    p = policy("rucb", 5, seed=0)
    batch = p.select_batch()
    assert batch.shape == (1, 2) and p.pending == (tuple(batch[0]),)
    assert not p.batched and policy("pcomp", 5, horizon=100).batched


# --------------------------------------------------------------------------- recommend
@pytest.mark.parametrize("name", BUILT_IN)
def test_recommend_names_the_condorcet_winner(name):
    """On a BTL instance with a clear winner (arm 0), after 3000 comparisons every algorithm
    that defines a guess includes arm 0, and those that have committed name it alone."""
    p = policy(name, 5, seed=2, horizon=3000, **({"confidence_factor": 0.5} if name == "btm" else {}))
    assert p.recommend() is None
    drive(p, EASY5.values, 3000)
    rec = p.recommend()
    if name == "random":
        assert rec is None
        return
    assert isinstance(rec, tuple) and rec == tuple(sorted(rec)) and 0 in rec
    if name in ("btm", "copeland_savage", "condorcet_savage", "ccb", "rmed1", "rucb", "rcs", "ecw_rmed", "sparring",
                "pcomp", "scomp", "scb"):
        assert rec == (0,)


@pytest.mark.parametrize("name", ["rucb", "dts", "dts_plus", "ccb"])
def test_recommended_candidates_agree_with_the_confidence_bounds(name):
    """At every step, the candidates of RUCB, D-TS, D-TS+ and CCB recomputed from the policy's
    public tallies: j confidently beats i when l_ji > 1/2, i.e. p̂_ji > 1/2 and
    N_ij (p̂_ji − 1/2)² / α > ln t (the RUCB bounds, α = 0.51); C = the arms with the fewest
    confident losses.  D-TS(+) recommend C, CCB a non-empty part of it (B ∩ C_t), RUCB arms no
    arm confidently beats (None if there is none)."""
    sizes = set()
    for seed in (6, 7):  # two runs: in one the candidate set may stay whole for 1,500 steps
        p = policy(name, 5, seed=seed)
        for _ in range(1500):
            drive(p, MILD5.values, 1)
            W = p.wins.astype(np.float64)
            N = W + W.T
            mu = np.divide(W, N, out=np.full_like(W, 0.5), where=N > 0)
            beats = (mu > 0.5) & (N * (mu - 0.5) ** 2 / 0.51 > np.log(p.t))
            lost = beats.sum(axis=0)
            C = set(np.flatnonzero(lost == lost.min()).tolist())
            rec = p.recommend()
            if name in ("dts", "dts_plus"):
                assert set(rec) == C, p.t
            elif name == "ccb":
                assert rec and set(rec) <= C, p.t
            elif lost.min() > 0:
                assert rec is None, p.t
            else:
                assert rec and set(rec) <= C, p.t
            sizes.add(len(C))
    assert len(sizes) >= 2, sizes  # the candidate set changed during the runs


@pytest.mark.parametrize("name, P, T, params", [
    ("btm", EASY5, 3000, {"confidence_factor": 0.5}),
    ("copeland_savage", EASY5, 3000, {}),
    ("condorcet_savage", EASY5, 3000, {}),
    ("scb", EASY2, 1000, {}),
])
def test_recommend_is_the_exploited_arm(name, P, T, params):
    """Once committed, the recommendation is the arm of the self-comparisons handed out."""
    p = policy(name, P.K, seed=7, horizon=T, dataset="other labels", **params)
    pairs = np.array(drive(p, P.values, T))
    assert pairs[-1, 0] == pairs[-1, 1]
    assert p.recommend() == (int(pairs[-1, 0]),)


def test_recommend_of_scb_between_phases():
    """While phase 4 explores, SCB's guess is still the arm phase 3 returned."""
    p = policy("scb", 2, seed=3)
    pairs = np.array(drive(p, EASY2.values, 300))
    runs = self_runs(pairs)
    assert runs[1][0] and not runs[-1][0]
    assert p.recommend() == (int(pairs[runs[0][1], 0]),)


# --------------------------------------------------------------------------- bad calls
def one_line(excinfo) -> str:
    msg = str(excinfo.value)
    assert "\n" not in msg and msg
    return msg


@pytest.mark.parametrize("name", NEEDS_HORIZON)
def test_algorithms_that_need_the_horizon_say_so(name):
    with pytest.raises(ValueError) as err:
        policy(name, 5, seed=0)
    msg = one_line(err)
    assert msg.startswith(f"{name}: its rules depend on the horizon") and "pass horizon=T" in msg


@pytest.mark.parametrize("name", sorted(set(BUILT_IN) - set(NEEDS_HORIZON)))
def test_other_algorithms_run_without_a_horizon(name):
    p = policy(name, 5, seed=0)
    drive(p, EASY5.values, 5)
    assert p.horizon is None and p.t == 5


def test_calls_out_of_order_are_refused():
    p = policy("dts", 5, seed=0)
    with pytest.raises(RuntimeError) as err:
        p.update(0, 1, True)
    assert "update() before select()" in one_line(err)
    i, j = p.select()
    with pytest.raises(RuntimeError) as err:
        p.select()
    assert f"the pair ({i}, {j}) handed out at step 1 still waits" in one_line(err)
    with pytest.raises(RuntimeError):
        p.select_batch()
    with pytest.raises(ValueError) as err:
        p.update(j, i, True) if i != j else p.update((i + 1) % 5, j, True)
    assert "the pair waiting for its outcome is" in one_line(err)
    assert p.pending == ((i, j),) and p.t == 0
    p.update(i, j, 1, t=1)
    assert p.t == 1 and p.pending == ()
    with pytest.raises(ValueError) as err:
        p.select(t=1)
    assert "t=1, but the next outcome is that of step 2" in one_line(err)
    assert p.select(t=2) == p.pending[0]


def test_bad_arguments_name_the_argument():
    p = policy("rucb", 5, seed=0)
    i, j = p.select()
    cases = [
        ((5, j, True), ValueError, "i=5 is outside 0..4"),
        ((i, -1, True), ValueError, "j=-1 is outside 0..4"),
        ((1.0, j, True), TypeError, "i must be an arm index"),
        ((True, j, True), TypeError, "i must be an arm index"),
        ((i, j, 0.5), TypeError, "i_won must be True/False"),
        ((i, j, 1.0), TypeError, "i_won must be True/False"),
        ((i, j, 2), TypeError, "i_won must be True/False"),
        ((i, j, "yes"), TypeError, "i_won must be True/False"),
        ((i, j, None), TypeError, "i_won must be True/False"),
    ]
    for args, exc, text in cases:
        with pytest.raises(exc) as err:
            p.update(*args)
        assert text in one_line(err), args
    with pytest.raises(ValueError) as err:
        p.update(i, j, True, t=3)
    assert "t=3, but the next outcome is that of step 1" in one_line(err)
    p.update(np.int64(i), np.int32(j), np.bool_(False))
    assert p.t == 1


def test_bad_construction_and_budget():
    for kwargs, exc, text in [
        (dict(algorithm="dts", K=1), ValueError, "K must be >= 2"),
        (dict(algorithm="dts", K=5.0), TypeError, "K must be an integer"),
        (dict(algorithm="dts", K=5, seed=-1), ValueError, "seed must be >= 0"),
        (dict(algorithm="dts", K=5, horizon=0), ValueError, "horizon must be >= 1"),
        (dict(algorithm="dts", K=5, gamma=2.0), ValueError, "has no parameter(s) ['gamma']"),
        (dict(algorithm="dts", K=5, alpha=0.4), ValueError, "alpha must be > 1/2"),
    ]:
        with pytest.raises(exc) as err:
            policy(**kwargs)
        assert text in one_line(err), kwargs
    with pytest.raises(KeyError, match="unknown algorithm 'nope'"):
        policy("nope", 5)
    p = policy("sparring", 3, seed=0, horizon=4)
    drive(p, btl(3, 2, 1).values, 4)
    with pytest.raises(RuntimeError) as err:
        p.select()
    assert "the horizon of 4 comparisons is spent" in one_line(err)


def test_update_batch_checks_everything_before_applying():
    p = policy("pcomp", 5, seed=0, horizon=500)
    batch = p.select_batch()
    assert len(batch) >= 10
    wrong = batch[:3].copy()
    wrong[2] = wrong[2][::-1]
    for args, exc, text in [
        ((wrong, [True] * 3), ValueError, "pairs[2] = "),
        ((batch[:3], [True, False]), ValueError, "outcomes has 2 values for 3 pairs"),
        ((batch[:3], [True, 0.3, False]), TypeError, "i_won must be True/False"),
        ((batch[:, :1], [True] * len(batch)), TypeError, "pairs must be an (n, 2) array"),
        ((np.vstack([batch, batch]), [True] * (2 * len(batch))), ValueError, "only"),
    ]:
        with pytest.raises(exc) as err:
            p.update_batch(*args)
        assert text in one_line(err)
    assert p.t == 0 and len(p.pending) == len(batch)
    p.update_batch(batch[:3], [True, 0, 1])
    assert p.t == 3 and p.wins.sum() == 3


# --------------------------------------------------------------------------- package root, docs, example
def test_package_root_exports_the_online_api():
    assert duelbench.policy is policy and duelbench.load_policy is load_policy
    assert {"policy", "load_policy"} <= set(duelbench.__all__)


def test_docs_example_runs(tmp_path):
    text = (ROOT / "docs" / "online.md").read_text()
    code = re.findall(r"```python\n(.*?)```", text, flags=re.S)[0]
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "ranking:" in proc.stdout and "scomp2 keeps:" in proc.stdout
    assert load_policy(tmp_path / "ranking.npz").t == 3000
    assert "docs/online.md" in (ROOT / "README.md").read_text()


def test_example_script_writes_the_plot(tmp_path):
    out = tmp_path / "counts.png"
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "online_ranking.py"), str(out), "--systems", "4",
                           "--comparisons", "300"], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, MPLBACKEND="Agg"))
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "ranking" in proc.stdout
