"""ECW-RMED against an independent plain-Python reference, pair by pair.

The compiled ECW-RMED (:mod:`duelbench.algorithms.ecw_rmed`; Komiyama et al. 2016, Algorithm 1,
L145–L190, with α = 3.0, β = 0.01 of L305) must draw exactly the pairs of
:class:`tests.reference.ecw_rmed.ReferenceECWRMED`, which recomputes ``μ̂``, ``d``, the
Copeland structure, the membership test (3) and the exploration target of Theorem 5 (L220–L232)
from the win counts at every step, in its own code, when both consume the engine's random
stream of the same run (:func:`tests.reference.driver.reference_pairs`).

Instances: the datasets of Komiyama et al. 2016 (Table 2, L137–L143; Table 3, L381–L445; ArXiv
with its printed tie), a 4-arm matrix whose Copeland winner ties exactly with one arm, MultiSol
with large gaps (several Copeland winners certified at once), and random matrices with
``L̂^(1) ≥ 2`` (where LP (6) has ``k > 0``); K = 4 … 16; runs 0 and 3, arms permuted.  Each
instance must exercise its listed branches (counted in the reference), and the hyper-parameters
must be visible: on the same random stream, the reference with β = 0 (the variant of L289) or
another α draws other pairs within the horizon.  The closed form of the reference's ``C^{E*}``
is checked against a direct LP of ``R^E`` (L204–L208).
"""

import warnings

import numpy as np
import pytest

from duelbench import simulate
from duelbench.algorithms.registry import canonical_params

from _engine_helpers import random_matrix
from reference.driver import reference_pairs
from reference.ecw_rmed import ReferenceECWRMED, Structure, ecw_constant_lp

ALGO = "ecw_rmed"
#: Komiyama et al. (2016, L305): α = 3.0, β = 0.01.  Passed explicitly to the reference;
#: ``simulate`` runs with the registered defaults, which must be these.
PAPER = {"alpha": 3.0, "beta": 0.01}
BETA0 = {"alpha": 3.0, "beta": 0.0}  # "setting β = 0 yields almost the same results" (L289)
RUNS = (0, 3)

#: Copeland winner 0 ties exactly with arm 3 (μ_03 = 1/2); 1 beats 2 and 3, 2 beats 3.
TIED = np.array([
    [0.5, 0.9, 0.9, 0.5],
    [0.1, 0.5, 0.8, 0.8],
    [0.1, 0.2, 0.5, 0.8],
    [0.5, 0.2, 0.2, 0.5],
])

#: MultiSol (Komiyama et al. 2016, Table 3(c), L416–L420) with gap 0.49 on every pair involving
#: one of its three Copeland winners: several candidates pass test (3) at once, so the order in
#: which line (8) tries them shows.
MULTISOL99 = np.array([
    [0.50, 0.01, 0.99, 0.99, 0.99],
    [0.99, 0.50, 0.01, 0.99, 0.99],
    [0.01, 0.99, 0.50, 0.99, 0.99],
    [0.01, 0.01, 0.01, 0.50, 0.60],
    [0.01, 0.01, 0.01, 0.40, 0.50],
])

BASE = {"scan_alpha", "scan_tie", "pass", "explore", "target_pairs", "target_met", "passes"}

#: name → (matrix or dataset name, horizon, branches that must run in runs 0 and 3 together)
CASES = {
    "arxiv": ("arxiv", 3000, BASE | {"scan_beta", "rows_k0", "rows_kpos", "rows_wide", "multi_candidates",
                                     "candidate_ties"}),
    "multisol": ("multisol", 3000, BASE | {"exploit", "tie_refused", "rows_k0", "multi_candidates",
                                           "candidate_ties"}),
    "gap": ("gap", 3000, BASE | {"exploit", "rows_k0", "rows_kpos", "candidate_ties"}),
    "cyclic": ("cyclic", 3000, BASE | {"exploit"}),  # K = 4, Condorcet winner
    "mslr5_noncondorcet_printed": ("mslr5_noncondorcet_printed", 3000,
                                   BASE - {"target_met"} | {"scan_beta", "tie_refused", "rows_kpos",
                                                            "candidate_ties"}),
    "mslr5_condorcet_printed": ("mslr5_condorcet_printed", 3000, BASE | {"scan_beta", "multi_candidates"}),
    "sushi": ("sushi", 1500, BASE | {"rows_k0", "rows_kpos", "multi_candidates"}),  # K = 16
    "tied": (TIED, 3000, BASE | {"exploit", "tie_refused"}),
    "multisol99": (MULTISOL99, 3000, BASE | {"exploit", "several_pass", "multi_candidates", "candidate_ties"}),
    "random7": (random_matrix(7, 2), 2500, BASE | {"scan_beta", "rows_k0", "rows_kpos", "rows_wide"}),
    "random8": (random_matrix(8, 7), 2000, BASE | {"scan_beta", "tie_refused", "rows_kpos", "rows_wide"}),
}

#: β = 0 cases: line (4) then draws a pair only while it is undersampled or exactly tied.
CASES_BETA0 = {
    "arxiv": ("arxiv", 3000, BASE | {"rows_kpos", "rows_wide"}),
    "tied": (TIED, 3000, BASE | {"exploit", "tie_refused"}),
    "mslr5_noncondorcet_printed": ("mslr5_noncondorcet_printed", 3000, BASE - {"target_met"} | {"candidate_ties"}),
    "random8": (random_matrix(8, 7), 2000, BASE | {"rows_kpos", "rows_wide"}),
}


def _quiet_simulate(P, T, runs=max(RUNS) + 1, seed=0, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ArXiv's and TIED's exact ties
        return simulate(ALGO, P, T, runs, seed=seed, record_pairs=True, **params).pairs


def _reference(P, T, run, *, params=PAPER, stream_params=None, seed=0, permute=True):
    """Pairs and branch counts of the reference with ``params``, played on the random stream of
    ``stream_params`` (default: the same parameters)."""
    played = []

    class Ref(ReferenceECWRMED):
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


def _check_case(case, P, T, required, params, sim_params):
    sim = _quiet_simulate(P, T, **sim_params)
    assert sim.shape == (max(RUNS) + 1, T, 2)
    total = dict.fromkeys(ReferenceECWRMED(2, 1, PAPER).branches, 0)
    for run in RUNS:
        ref, branches = _reference(P, T, run, params=params)
        first = _first_difference(ref, sim[run])
        assert first is None, (
            f"{case} {params} run {run}: first differing step t = {first + 1}: "
            f"reference {ref[first].tolist()} vs simulate {sim[run][first].tolist()}")
        for k, v in branches.items():
            total[k] += v
    missing = sorted(k for k in required if total[k] == 0)
    assert not missing, f"{case} {params}: branches never exercised: {missing} ({total})"


def test_registered_defaults_are_the_papers():
    """Komiyama et al. 2016, L305: α = 3.0, β = 0.01."""
    assert canonical_params(ALGO, {}) == PAPER


@pytest.mark.parametrize("case", sorted(CASES))
def test_pairs_equal_reference(case):
    """Defaults (α = 3, β = 0.01): every pair of runs 0 and 3 equals the reference's."""
    P, T, required = CASES[case]
    _check_case(case, P, T, required, PAPER, {})


@pytest.mark.parametrize("case", sorted(CASES_BETA0))
def test_pairs_equal_reference_beta0(case):
    """β = 0 (L289): every pair equals the reference's with β = 0."""
    P, T, required = CASES_BETA0[case]
    _check_case(case, P, T, required, BETA0, {"beta": 0.0})


def test_cases_cover_every_branch():
    """Together the cases require every branch counted by the reference."""
    required = set().union(*(req for _, _, req in CASES.values()))
    assert required == set(ReferenceECWRMED(2, 1, PAPER).branches)


def test_other_alpha_unpermuted_and_other_seed():
    """``alpha=2`` through ``simulate`` equals the reference with α = 2; identity labelling
    (runs 0 and 3 then differ only by their random streams, so they must differ) and another
    seed."""
    alpha2 = {"alpha": 2.0, "beta": 0.01}
    sim = _quiet_simulate("mslr5_noncondorcet_printed", 2000, **alpha2)
    default = _quiet_simulate("mslr5_noncondorcet_printed", 2000)
    assert not np.array_equal(sim, default)
    for run in RUNS:
        ref, _ = _reference("mslr5_noncondorcet_printed", 2000, run, params=alpha2)
        assert _first_difference(ref, sim[run]) is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = simulate(ALGO, "gap", 2000, 4, seed=0, permute=False, record_pairs=True).pairs
        seed7 = simulate(ALGO, "multisol", 2000, 1, seed=7, run_start=2, record_pairs=True).pairs[0]
    assert not np.array_equal(plain[0], plain[3])  # same labels: only the runs' streams differ
    for run in RUNS:
        assert _first_difference(_reference("gap", 2000, run, permute=False)[0], plain[run]) is None
    assert _first_difference(_reference("multisol", 2000, 2, seed=7)[0], seed7) is None
    # the first visit of line (4) draws every pair once, in lexicographic order
    lex = [[a, b] for a in range(5) for b in range(a + 1, 5)]
    assert plain[0][:len(lex)].tolist() == lex


@pytest.mark.parametrize("case", ["arxiv", "mslr5_noncondorcet_printed", "random8"])
def test_alpha_and_beta_change_the_pairs(case):
    """α and β matter within the horizon: on the same random stream, the reference with β = 0,
    α = 2.9 or α = 3.1 draws other pairs than ``simulate`` with the defaults."""
    P, T, _ = CASES[case]
    sim = _quiet_simulate(P, T)
    for variant in (BETA0, {"alpha": 2.9, "beta": 0.01}, {"alpha": 3.1, "beta": 0.01}):
        differs = [
            _first_difference(_reference(P, T, run, params=variant, stream_params=PAPER)[0], sim[run]) is not None
            for run in RUNS
        ]
        assert any(differs), f"{case}: {variant} draws the same pairs as the defaults"


def test_beta0_simulation_differs_from_default():
    """The β = 0 variant of the configuration is a different run from the default one."""
    P, T = "arxiv", 3000
    assert not np.array_equal(_quiet_simulate(P, T, beta=0.0), _quiet_simulate(P, T))


def _matrices():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from duelbench.data.registry import load_matrix

        named = {n: load_matrix(n).values for n in ("arxiv", "multisol", "gap", "cyclic", "sushi",
                                                     "mslr5_noncondorcet_printed", "mslr5_condorcet_printed")}
    named["tied"] = TIED
    for K, s in ((6, 6), (7, 2), (8, 7)):
        named[f"random{K}_{s}"] = random_matrix(K, s)
    # an empirical-looking matrix with exact ties, L̂^(1) = 2 and five Copeland winners (k > 0
    # and h > k + 1 in LP (6))
    rng = np.random.default_rng(36)
    U = np.round(rng.uniform(0.1, 0.9, size=(7, 7)) * 8) / 8
    M = np.triu(U, 1)
    M = M + np.tril(1.0 - M.T, -1)
    np.fill_diagonal(M, 0.5)
    named["rounded7"] = M
    return named


@pytest.mark.parametrize("name", sorted(_matrices()))
def test_closed_form_target_is_the_lp_optimum(name):
    """The reference's Theorem 5 value ``C^{E*}_{i1}`` equals a direct LP over ``R^E_{i1}``
    (L204–L208), and its point is feasible and attains it, for every Copeland winner i1."""
    P = _matrices()[name]
    S = Structure(np.asarray(P, dtype=float).tolist())
    if name == "rounded7":
        assert (S.L1, len(S.winners)) == (2, 5)
    for i1 in S.winners:
        value = S.constant(i1)
        assert value == pytest.approx(ecw_constant_lp(P, i1), rel=1e-7, abs=1e-9)
        e, _ = S.target(i1)
        E = [[0.0] * S.K for _ in range(S.K)]
        cost = 0.0
        for (a, b), x in e.items():
            E[a][b] = E[b][a] = x
            cost += S.regret(a, b) * x / S.d[a][b]
        assert cost == pytest.approx(value, rel=1e-9, abs=1e-12)
        S.E = E  # covering constraints at q d = e: every left-hand side ≥ 1
        assert S.margin(i1) >= 1.0 - 1e-12
