"""SCB (compiled, :mod:`duelbench.algorithms.scb`) against the independent reference
:mod:`reference.scb` (Zoghi et al. 2015, Algorithms 2–4, L112–131 and L905–920), pair for pair
on the engine's random streams.

The reference is written top-down as printed (squaring trick → Algorithm 2 → Algorithm 4) with
its own anytime Hoeffding test, its own KL divergence and bisection, and the phases as Python
integers 2^(2^r); the module's flat state machine (one comparison per call, reward calls kept
open across steps), its log-space δ, its exploitation blocks recorded in closed form and the
exact order of its random draws are what is under test.

Phases 1–3 (T = 4, 16, 256) are always force-terminated except on near-deterministic
instances; phase 4 (T = 65 536) stops on easy instances (gaps 0.4); phase 5 (T = 2^32, from
step 65 813) stops within 10^6 steps on "cyclic" and "multisol".
"""

import numpy as np
import pytest

import duelbench
from duelbench.engine.seeding import run_permutation
from duelbench.engine.traces import scb_exploration_trace
from duelbench.problems.generators import copeland_cycle_plus_order
from duelbench.problems.matrix import PreferenceMatrix

from _engine_helpers import random_matrix
from reference.driver import reference_pairs
from reference.scb import ReferenceSCB, bernoulli_kl, kl_confidence_interval

pytestmark = pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")

ALGORITHM = "scb"
SEEDS = [(0, 0), (1, 3)]
#: Steps before phases 1–5: cumulative lengths 4, 16, 256, 65 536.
PHASE_STARTS = [0, 4, 20, 276, 65_812]

INSTANCES = {
    # a Condorcet winner above a transitive order, every gap 0.4: phases 4 and 5 stop
    "easy_cw": copeland_cycle_plus_order(1, 4, 0.4, 0.4, 0.4).values,
    # three Copeland winners in a cycle above two losers, every gap 0.4
    "easy_cycle": copeland_cycle_plus_order(3, 2, 0.4, 0.4, 0.4).values,
    # arm 0 always wins: rewards are decided after a fixed number of queries, phase 3 stops
    "deterministic2": np.array([[0.5, 1.0], [0.0, 0.5]]),
    "random5": random_matrix(5, 3),
}


def _instance(name):
    return INSTANCES.get(name, name)


class _Tap:
    def __init__(self):
        self.ref = None

    def __call__(self, K, horizon, params):
        self.ref = ReferenceSCB(K, horizon, params)
        return self.ref


def _compare(name, T, seed, run):
    """Reference and compiled pairs of one run must be equal; returns the reference."""
    tap = _Tap()
    P = _instance(name)
    ref = reference_pairs(tap, P, T, algorithm=ALGORITHM, seed=seed, run=run)
    got = duelbench.simulate(ALGORITHM, P, T, 1, seed, run_start=run, record_pairs=True).pairs[0]
    if not np.array_equal(ref, got):
        t = int(np.argmax(np.any(ref != got, axis=1)))
        pytest.fail(f"first difference at t = {t + 1}: reference {tuple(ref[t])}, compiled {tuple(got[t])}; "
                    f"reference phases {tap.ref.phases}, events {tap.ref.events}")
    return tap.ref


def test_reference_phase_arithmetic():
    """The reference's own phase lengths 2^(2^r) and starts (Algorithm 3, line 2, L129)."""
    ref = _Tap()
    reference_pairs(ref, "cyclic", 70_000, algorithm=ALGORITHM)
    assert [p[1] for p in ref.ref.phases] == PHASE_STARTS
    assert [p[4] for p in ref.ref.phases] == ["forced"] * 4 + ["cut"]
    assert [p[2] for p in ref.ref.phases] == [4, 16, 256, 65_536, 70_000 - 65_812]


def test_reference_kl_interval_against_its_definition():
    """Each end of the reference's interval lies outside {q : n d(p̂, q) ≤ level} by at most 10⁻¹⁰
    (or is 0 or 1), and the closed forms at p̂ ∈ {0, 1}."""
    for p_hat, n, level in ((0.3, 10, 2.0), (0.75, 400, 9.0), (0.5, 2, 5.9), (0.01, 100, 1.0)):
        lo, hi = kl_confidence_interval(p_hat, n, level)
        assert lo <= p_hat <= hi
        assert lo == 0.0 or (n * bernoulli_kl(p_hat, lo) > level >= n * bernoulli_kl(p_hat, lo + 1e-10))
        assert hi == 1.0 or (n * bernoulli_kl(p_hat, hi) > level >= n * bernoulli_kl(p_hat, hi - 1e-10))
    lo, hi = kl_confidence_interval(0.0, 7, 3.0)
    assert lo == 0.0 and hi == pytest.approx(1.0 - np.exp(-3.0 / 7), abs=1e-9)
    lo, hi = kl_confidence_interval(1.0, 7, 3.0)
    assert hi == 1.0 and lo == pytest.approx(np.exp(-3.0 / 7), abs=1e-9)


@pytest.mark.parametrize("seed,run", SEEDS)
@pytest.mark.parametrize("name", ["cyclic", "multisol", "mslr5_noncondorcet_printed", "mslr5_condorcet_printed",
                                  "gap", "arxiv", "sushi", "random5"])
def test_compiled_scb_equals_reference_through_phase_five(name, seed, run):
    """T = 70 000: phases 1–4 and the start of phase 5 (force-terminations, the Hoeffding test of
    every reward call, the rounds and eliminations of Algorithm 4 where rewards are decided)."""
    ref = _compare(name, 70_000, seed, run)
    assert [p[0] for p in ref.phases] == [1, 2, 3, 4, 5]
    if name in ("cyclic", "multisol", "random5"):  # gaps ≥ 0.1: rewards are decided in phase 4
        assert ref.events["reward_0"] > 0 and ref.events["reward_1"] > 0 and ref.events["rounds"] > 0


@pytest.mark.parametrize("name,T,seed,run,phases,branches", [
    # phases 4 and 5 stop by the separation rule; the phase-4 exploitation block lies inside
    # the horizon, the phase-5 one is cut by it
    ("easy_cw", 120_000, 0, 0, ["forced"] * 3 + ["stop", "stop"], ("eliminated", "exploit_block")),
    ("easy_cw", 120_000, 1, 3, ["forced"] * 3 + ["stop", "stop"], ("eliminated", "exploit_block")),
    # phase 4 force-terminated after rounds with eliminations, phase 5 cut by the horizon
    ("easy_cycle", 80_000, 0, 3, ["forced"] * 4 + ["cut"], ("eliminated", "rounds")),
    # the budget of phase 3 (run 2) or 4 (run 5) runs out exactly when a reward call has ended:
    # no opponent may be drawn for the next call, or the following phase's stream shifts
    ("easy_cycle", 70_000, 0, 2, ["forced"] * 4 + ["cut"], ("budget_between_calls", "rounds")),
    ("easy_cycle", 70_000, 0, 5, ["forced"] * 4 + ["cut"], ("budget_between_calls", "rounds")),
    # deterministic outcomes: phase 3 stops after round t = 2, then (a, a) to the end of the phase
    ("deterministic2", 1_000, 0, 0, ["forced", "forced", "stop", "stop"], ("exploit_block",)),
    ("deterministic2", 1_000, 2, 1, ["forced", "forced", "stop", "stop"], ("exploit_block",)),
])
def test_compiled_scb_equals_reference_with_stops(name, T, seed, run, phases, branches):
    ref = _compare(name, T, seed, run)
    assert [p[4] for p in ref.phases] == phases, ref.phases
    for k in branches:
        assert ref.events[k] > 0, (k, ref.events)


def test_budget_runs_out_between_reward_calls_in_phases_three_and_four():
    """The two runs above exercise the boundary case in the phases named."""
    found = set()
    for run in (2, 5):
        tap = _Tap()
        reference_pairs(tap, _instance("easy_cycle"), 70_000, algorithm=ALGORITHM, seed=0, run=run)
        found |= set(tap.ref.between_calls)
    assert {3, 4} <= found, found


@pytest.mark.parametrize("name,T,seed,run", [("multisol", 1_000_000, 0, 0), ("cyclic", 400_000, 0, 3)])
def test_phase_five_stops_by_separation(name, T, seed, run):
    """Three tied Copeland winners (multisol) and a Condorcet winner (cyclic): B keeps several
    arms and only the declared top-level separation rule ends phase 5; the winner is then
    played to the horizon."""
    ref = _compare(name, T, seed, run)
    last = ref.phases[-1]
    assert last[0] == 5 and last[4] == "stop" and ref.events["stop_separated"] > 0, ref.phases


@pytest.mark.parametrize("name,T,seed,run", [("easy_cw", 120_000, 1, 3), ("easy_cycle", 80_000, 0, 3),
                                             ("deterministic2", 1_000, 0, 0)])
def test_exploration_trace_matches_reference_phases(name, T, seed, run):
    """:func:`duelbench.engine.traces.scb_exploration_trace` reports the reference's phases: start, T_0, how the
    exploration ended and the arm returned (original labels; −1 while the horizon cut it)."""
    tap = _Tap()
    P = _instance(name)
    reference_pairs(tap, P, T, algorithm=ALGORITHM, seed=seed, run=run)
    perm = run_permutation(seed, PreferenceMatrix(P).identity, run, P.shape[0])
    status = {"stop": 1, "forced": 0, "cut": -1}
    rows = scb_exploration_trace(P, T, seed=seed, run_index=run)
    assert [(d["r"], d["start"], d["T0"], d["status"], d["arm"]) for d in rows] == [
        (r, start, T0, status[how], -1 if arm is None else int(perm[arm])) for r, start, T0, arm, how in tap.ref.phases]
