"""PCOMP, SCOMP and SCOMP2 (compiled, :mod:`duelbench.algorithms.batched`) against the
independent reference :mod:`reference.batched` (Agarwal, Ghuge & Nagarajan 2022, paper 003,
Algorithms 1-3 @18682, @21578, @24450; KL elimination @32491), pair for pair on the engine's
random streams, and the batch log against the reference's own record of its batches.

The reference recomputes every estimate, radius and KL divergence from its own counts at the
end of each batch and follows the pseudo-code top-down (PCOMP as a function called with τ after
a switch); the module's flat loop over one shared core, its exact integer γ-tests, its
elimination guard and its batch log are what is under test.
"""

import numpy as np
import pytest

from duelbench.algorithms.batched import batch_log
from duelbench.algorithms.registry import canonical_params
from duelbench.data.registry import load_matrix
from duelbench.engine.seeding import run_permutation, run_rng
from duelbench.problems.generators import hard_condorcet, random_btl
from duelbench.problems.matrix import PreferenceMatrix

from _engine_helpers import random_matrix
from reference.batched import REFERENCES
from reference.driver import Tap, compare_with_engine, reference_pairs

pytestmark = pytest.mark.filterwarnings("ignore::duelbench.problems.matrix.TiedPairWarning")

SEEDS = [(0, 0), (1, 3)]
T = 20_000

INSTANCES = {
    "arxiv": "arxiv",                      # K = 6, Condorcet winner, one exact tie
    "sushi": "sushi",                      # K = 16
    "multisol": "multisol",                # no Condorcet winner: cycles, the elimination guard
    "cyclic": "cyclic",
    "random5": random_matrix(5, 1),
    "btl30": random_btl(30, 4).values,     # SST + STI (SYN-BTL of paper 003, smaller K)
    "hard20": hard_condorcet(20, 0.2, winner=7).values,  # SYN-CD of paper 003 with K = 20
}

#: Parameter variants: the declared defaults and every flag's other values.
VARIANTS = [
    {},
    {"elimination": 1.0},
    {"elimination": 1.0, "delta": 1.0},
    {"threshold": 1.0},
    {"threshold": 2.0},
    {"delta": 1.0},
    {"kl_counts": 1.0},
    {"rounding": 1.0},
    {"batches": 4.0},
    {"all_kl": 1.0},
    {"all_kl": 1.0, "kl_counts": 1.0},
    {"seed_exponent": 0.0},                         # S = all arms
    {"seed_exponent": 2.0},                         # S mostly empty
    {"elimination": 1.0, "seed_exponent": 0.0},     # SCOMP2: rounds without an undefeated arm
    {"all_kl": 1.0, "seed_exponent": 0.0},
]


def _variants(alg):
    return [v for v in VARIANTS if alg != "pcomp" or not ({"all_kl", "seed_exponent"} & set(v))]


def _instance(name):
    return INSTANCES[name]


CASES = [(alg, v) for alg in REFERENCES for v in _variants(alg)]


@pytest.mark.parametrize("alg,params", CASES, ids=[f"{a}-{'-'.join(f'{k}={v:g}' for k, v in p.items()) or 'defaults'}"
                                                     for a, p in CASES])
def test_compiled_equals_reference(alg, params):
    for name in INSTANCES:
        for seed, run in SEEDS:
            compare_with_engine(Tap(REFERENCES[alg]), alg, _instance(name), T, seed, run, params)


def _events(alg, cases):
    total = {}
    for name, params, seed, run in cases:
        tap = Tap(REFERENCES[alg])
        reference_pairs(tap, _instance(name), T, algorithm=alg, params=params, seed=seed, run=run)
        for k, v in tap.ref.events.items():
            total[k] = total.get(k, 0) + v
    return total


@pytest.mark.parametrize("alg,needed", [
    ("pcomp", ("cut", "self_play", "eliminations", "keep_fewest")),
    ("scomp", ("cut", "self_play", "eliminations", "keep_fewest", "switch", "empty_seed")),
    ("scomp2", ("cut", "self_play", "eliminations", "switch", "empty_seed", "single_seed", "no_undefeated",
                "several_undefeated")),
])
def test_reference_reaches_every_branch(alg, needed):
    """The compared cases reach: a batch cut by T, the closing (a, a) block, eliminations, the
    guard that keeps the arms beaten by the fewest, switches to PCOMP, an empty seed set, a single
    seed, SCOMP2 rounds with no and with several undefeated arms."""
    cases = [(name, params, seed, run) for name in ("multisol", "cyclic", "arxiv", "btl30", "hard20")
             for params in _variants(alg) for seed, run in SEEDS]
    total = _events(alg, cases)
    assert all(total[k] > 0 for k in needed), total


@pytest.mark.parametrize("alg", sorted(REFERENCES))
@pytest.mark.parametrize("name,params", [("btl30", {}), ("hard20", {"elimination": 1.0}), ("multisol", {}),
                                         ("sushi", {"seed_exponent": 0.0}), ("cyclic", {"threshold": 1.0})])
def test_batch_log_equals_reference_record(alg, name, params):
    """:func:`batch_log` on the run's permuted instance and stream reports the reference's
    batches (kind and size), eliminations, seed set and switch."""
    if alg == "pcomp" and "seed_exponent" in params:
        params = {}
    M = load_matrix(name) if isinstance(_instance(name), str) else PreferenceMatrix(_instance(name))
    for seed, run in SEEDS:
        tap = Tap(REFERENCES[alg])
        ref_pairs = reference_pairs(tap, M, T, algorithm=alg, params=params, seed=seed, run=run)
        ref = tap.ref
        perm = run_permutation(seed, M.identity, run, M.K)
        Pp = np.ascontiguousarray(M.values[np.ix_(perm, perm)])
        rng = run_rng(seed, M.identity, alg, canonical_params(alg, params), run)
        log = batch_log(alg, Pp, T, params, rng, record_pairs=True)
        assert np.array_equal(perm[log.pairs], ref_pairs)
        assert list(zip(log.batch_kinds, log.batch_sizes)) == ref.batches
        assert sorted(log.eliminated.items()) == sorted((a, b) for b, a in ref.eliminated)
        assert list(log.seed_set) == list(ref.seeds)
        if ref.switch is None:
            assert log.switch_round == -1 and log.switch_set is None
        else:
            assert (log.switch_round, list(log.switch_set)) == (ref.switch[0], ref.switch[1])
        if alg == "scomp2":  # the reference also notes a candidate chosen when T is already reached
            cands = [c for c in log.candidates if c >= 0]
            assert cands == ref.candidates[:len(cands)] and len(ref.candidates) - len(cands) in (0, 1)
