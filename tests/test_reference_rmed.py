"""RMED1 against an independent plain-Python reference, pair by pair.

The compiled RMED1 (:mod:`duelbench.algorithms.rmed`; Komiyama et al. 2015, run by Komiyama et
al. 2016 with ``f(K) = 0.3 K^1.01``, L305) must draw exactly the pairs of
:class:`tests.reference.rmed.ReferenceRMED1`, which recomputes ``μ̂``, ``Î``, ``î*`` and ``Ô``
from the win counts at every step, when both consume the engine's random stream of the same run
(:func:`tests.reference.driver.reference_pairs`).  Instances: Condorcet and non-Condorcet
datasets of Komiyama et al. 2016 (Table 2 and Table 3, L137–L143, L381–L445; ArXiv with its
printed tie), K = 4 … 16, and random matrices; runs 0 and 3, arms permuted.  Every branch of
the algorithm must run in the reference on each instance (counted), and the test must be able
to see the hyper-parameters: with ``f(K)`` changed (exponent 1.1, scale 0.35) the reference
draws other pairs within the horizon on the same random stream.
"""

import warnings

import numpy as np
import pytest

from duelbench import simulate
from duelbench.algorithms.registry import canonical_params

from _engine_helpers import random_matrix
from reference.driver import reference_pairs
from reference.rmed import ReferenceRMED1, kl_half

ALGO = "rmed1"
#: The hyper-parameters of Komiyama et al. (2016, L305): f(K) = 0.3 K^1.01.  Passed explicitly
#: to the reference; ``simulate`` runs with the registered defaults, which must be these.
PAPER = {"f_scale": 0.3, "f_exponent": 1.01}
RUNS = (0, 3)

ALL = frozenset(("initial", "second_best", "second_beats_most", "second_self", "admitted", "rejected", "passes"))
NO_SELF = ALL - {"second_self"}  # without a Condorcet winner, Ô_l is rarely empty

#: name → (matrix or dataset name, horizon, branches that must run in runs 0 and 3 together)
CASES = {
    "arxiv": ("arxiv", 2000, ALL),  # Condorcet, exact tie mu_46 = 1/2
    "multisol": ("multisol", 2000, NO_SELF),  # three Copeland winners
    "sushi": ("sushi", 1500, ALL),  # K = 16, Condorcet
    "cyclic": ("cyclic", 2000, ALL),  # K = 4
    "gap": ("gap", 2000, NO_SELF),
    "mslr5_noncondorcet_printed": ("mslr5_noncondorcet_printed", 2500, ALL),
    "mslr5_condorcet_printed": ("mslr5_condorcet_printed", 2000, ALL),
    "random8": (random_matrix(8, 7), 2000, NO_SELF),  # L̂^(1) = 3
    "random12": (random_matrix(12, 3), 1500, NO_SELF),
}


def _quiet_simulate(P, T, runs=max(RUNS) + 1, seed=0, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ArXiv's printed tie
        return simulate(ALGO, P, T, runs, seed=seed, record_pairs=True, **params).pairs


def _reference(P, T, run, *, params=PAPER, stream_params=None, seed=0, permute=True):
    """Pairs and branch counts of the reference with ``params``, played on the random stream of
    ``stream_params`` (default: the same parameters)."""
    played = []

    class Ref(ReferenceRMED1):
        def __init__(self, K, horizon, _stream):
            super().__init__(K, horizon, params)
            played.append(self)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stream = dict(params if stream_params is None else stream_params)
        pairs = reference_pairs(Ref, P, T, algorithm=ALGO, params=stream, seed=seed, run=run, permute=permute)
    return pairs, played[0].branches


def _first_difference(a, b):
    rows = np.flatnonzero((np.asarray(a) != np.asarray(b)).any(axis=1))
    return int(rows[0]) if rows.size else None


def test_registered_defaults_are_the_papers():
    """Komiyama et al. 2016, L305 (hyper-parameters of Komiyama et al. 2015): f(K) = 0.3 K^1.01."""
    assert canonical_params(ALGO, {}) == PAPER


def test_kl_half_values():
    """d(x) = d_KL(x, 1/2) (Komiyama et al. 2016, L83) at a few points."""
    assert kl_half(0.5) == 0.0
    assert kl_half(0.0) == pytest.approx(np.log(2.0))
    assert kl_half(1.0) == pytest.approx(np.log(2.0))
    x = 0.3
    assert kl_half(x) == pytest.approx(x * np.log(x / 0.5) + (1 - x) * np.log((1 - x) / 0.5))
    assert kl_half(0.3) == pytest.approx(kl_half(0.7))


@pytest.mark.parametrize("case", sorted(CASES))
def test_pairs_equal_reference(case):
    """Every pair of runs 0 and 3 equals the reference's; every required branch ran."""
    P, T, required = CASES[case]
    sim = _quiet_simulate(P, T)  # runs 0..3 in one call
    assert sim.shape == (max(RUNS) + 1, T, 2)
    total = dict.fromkeys(ALL, 0)
    for run in RUNS:
        ref, branches = _reference(P, T, run)
        first = _first_difference(ref, sim[run])
        assert first is None, (
            f"{case} run {run}: first differing step t = {first + 1}: "
            f"reference {ref[first].tolist()} vs simulate {sim[run][first].tolist()}")
        for k, v in branches.items():
            total[k] += v
    missing = sorted(k for k in required if total[k] == 0)
    assert not missing, f"{case}: branches never exercised: {missing} ({total})"


def test_cases_cover_every_branch():
    """Together the cases require every branch counted by the reference."""
    required = set().union(*(req for _, _, req in CASES.values()))
    assert required == set(ReferenceRMED1(3, 1, PAPER).branches)


def test_unpermuted_and_other_seed():
    """Identity labelling (``permute=False``; runs 0 and 3 then differ only by their random
    streams, so they must differ) and another seed."""
    P, T = "mslr5_condorcet_printed", 1500
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = simulate(ALGO, P, T, 4, seed=0, permute=False, record_pairs=True).pairs
        sim7 = simulate(ALGO, "cyclic", T, 1, seed=7, run_start=1, record_pairs=True).pairs[0]
    assert not np.array_equal(plain[0], plain[3])
    for run in RUNS:
        assert _first_difference(_reference(P, T, run, permute=False)[0], plain[run]) is None
    assert _first_difference(_reference("cyclic", T, 1, seed=7)[0], sim7) is None
    sim = plain[0]
    # the initial pairs are the lexicographic pairs i < j (in the instance's own labels)
    K = 5
    lex = [(i, j) for i in range(K) for j in range(i + 1, K)]
    assert sim[:len(lex)].tolist() == [list(p) for p in lex]


@pytest.mark.parametrize("case", ["arxiv", "cyclic", "sushi", "mslr5_noncondorcet_printed"])
def test_f_of_K_changes_the_pairs(case):
    """f(K) = 0.3 K^1.01 matters within the horizon: on the same random stream, the reference
    with exponent 1.1 or scale 0.35 draws other pairs than ``simulate`` with the defaults."""
    P, T, _ = CASES[case]
    sim = _quiet_simulate(P, T)
    for variant in ({"f_scale": 0.3, "f_exponent": 1.1}, {"f_scale": 0.35, "f_exponent": 1.01}):
        differs = [
            _first_difference(_reference(P, T, run, params=variant, stream_params=PAPER)[0], sim[run]) is not None
            for run in RUNS
        ]
        assert any(differs), f"{case}: f(K) with {variant} draws the same pairs as the defaults"


def test_f_exponent_parameter():
    """``simulate(f_exponent=1.1)`` equals the reference with exponent 1.1 and differs from the
    default run; likewise a different scale."""
    P, T = "arxiv", 2000
    default = _quiet_simulate(P, T)
    for variant in ({"f_scale": 0.3, "f_exponent": 1.1}, {"f_scale": 0.6, "f_exponent": 1.01}):
        sim = _quiet_simulate(P, T, **variant)
        assert not np.array_equal(sim, default)
        for run in RUNS:
            ref, _ = _reference(P, T, run, params=variant)
            assert _first_difference(ref, sim[run]) is None, (variant, run)
