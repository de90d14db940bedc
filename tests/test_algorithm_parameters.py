"""Default parameters of the registered algorithms, against the papers that ran them.

Every built-in algorithm has a row in :data:`PAPER_PARAMETERS` naming its parameters, their
published values and the paper line that states them.  The registry defaults
(``get_algorithm(name).defaults``) are always checked; the quoted paper line is checked too when
the paper texts are available at ``../shared/papers`` next to the checkout (paper files:
``000_f9a3afa5eda552a1.txt`` = Komiyama, Honda & Nakagawa, ICML 2016; ``001_46dfb6e9ef9a8784.txt``
= Zoghi, Karnin, Whiteson & de Rijke, NIPS 2015, full version; ``004_c659c680f71351ae.txt`` =
Wu & Liu, NIPS 2016, whose ``full_text`` field is numbered here).

Constants that are not registry parameters — Copeland SAVAGE's δ = 1/T and SCB's squaring-trick
constants — are checked through the functions that implement them.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from duelbench.algorithms import rmed, savage, scb
from duelbench.algorithms.registry import canonical_params, get_algorithm, list_algorithms, params_array
from duelbench.stats.bounds import lcb, ucb
from duelbench.stats.hoeffding import hoeffding_radius, hoeffding_side

CHECKOUT = Path(__file__).resolve().parent.parent
PAPERS_DIR = CHECKOUT.parent / "shared" / "papers"
KOMIYAMA_2016 = "000_f9a3afa5eda552a1.txt"
ZOGHI_2015 = "001_46dfb6e9ef9a8784.txt"
WU_LIU_2016 = "004_c659c680f71351ae.txt"


@dataclass(frozen=True)
class PaperParameter:
    """One published parameter value (``parameter=None``: the algorithm has no parameter).

    ``lines`` are 1-based line numbers of the paper text; ``quote`` must occur in them (joined
    with spaces, whitespace normalised).
    """

    algorithm: str
    parameter: str | None
    value: float | None
    paper: str
    file: str
    lines: tuple[int, ...]
    quote: str


#: Komiyama, Honda & Nakagawa (2016) L305: "RUCB (Zoghi et al., 2014) with α = 0.51", "CCB
#: (Zoghi et al., 2015a) with α = 0.51", "our ECW-RMED with α = 3.0 and β = 0.01", "The values of
#: the hyperparameters of RMED1 are the same as in Komiyama et al. (2015a)" (the latter's
#: f(K) = 0.3 K^1.01), "Random is a uniformly random sampling among pairs", "Copeland SAVAGE with
#: δ = 1/T".  Wu & Liu (2016) L894–895: "For algorithms using RUCB and RLCB, including D-TS and
#: D-TS+, we set the scale factor α = 0.51".  Zoghi et al. (2015) L129 (Algorithm 3, line 2):
#: "Set T = 2^{2^r} and run Algorithm 2 with failure probability log(T)/T".
PAPER_PARAMETERS = (
    PaperParameter("rucb", "alpha", 0.51, "Komiyama et al. (2016)", KOMIYAMA_2016, (305,),
                   r"RUCB (Zoghi et al., 2014) with $\alpha = 0.51$"),
    PaperParameter("ccb", "alpha", 0.51, "Komiyama et al. (2016)", KOMIYAMA_2016, (305,),
                   r"CCB (Zoghi et al., 2015a) with $\alpha = 0.51$"),
    PaperParameter("rmed1", "f_scale", 0.3, "Komiyama et al. (2016), values of Komiyama et al. (2015a)",
                   KOMIYAMA_2016, (305,),
                   "The values of the hyperparameters of RMED1 are the same as in Komiyama et al. (2015a)"),
    PaperParameter("rmed1", "f_exponent", 1.01, "Komiyama et al. (2016), values of Komiyama et al. (2015a)",
                   KOMIYAMA_2016, (305,),
                   "The values of the hyperparameters of RMED1 are the same as in Komiyama et al. (2015a)"),
    PaperParameter("ecw_rmed", "alpha", 3.0, "Komiyama et al. (2016)", KOMIYAMA_2016, (305,),
                   r"our ECW-RMED with $\alpha = 3.0$ and $\beta = 0.01$"),
    PaperParameter("ecw_rmed", "beta", 0.01, "Komiyama et al. (2016)", KOMIYAMA_2016, (305,),
                   r"our ECW-RMED with $\alpha = 3.0$ and $\beta = 0.01$"),
    PaperParameter("dts", "alpha", 0.51, "Wu & Liu (2016)", WU_LIU_2016, (894, 895),
                   "For algorithms using RUCB and RLCB, including D-TS and D-TS+, we set the scale factor α = 0.51"),
    # PCOMP, SCOMP, SCOMP2 (duelbench.algorithms.batched): Agarwal, Ghuge & Nagarajan (ICML 2022), paper
    # 003_27d5cd025c82709f.txt, whose text is ONE line: every row cites line 1, and the quote pins the place,
    # given as the character offset @N.  Values are written as printed (16, not 16.0); for the 0/1 reading
    # flags and 0.5 (= 1/√K, whose √ is lost) the "value in text" check is vacuous, the quote is the evidence.
    *(PaperParameter(alg, par, val, f"Agarwal et al. (2022) @{at}{why}", "003_27d5cd025c82709f.txt", (1,), quote)
      for alg in ("pcomp", "scomp", "scomp2")
      for par, val, at, why, quote in (
          ("batches", 16, 34200, "", "We set T = 105, δ = 1/TK2 and B = log(T) = 16"),
          ("elimination", 0, 32491, " (KL rule)",
           "In our algorithms, we use the KL-divergence based confidence bound (as in RMED1) for elimination"),
          ("threshold", 0, 32879, " (printed log(Tδ) < 0 for δ = 1/(TK²); read log(1/δ))",
           "Nij DKL( ˆPij, 1 2) > log(Tδ)"),
          ("delta", 0, 34200, " (δ = 1/(TK²))", "We set T = 105, δ = 1/TK2"),
          ("kl_counts", 0, 32909, " (N_ij over the run)",
           "where Nij is the number of times arm i and j are played together"),
          ("rounding", 0, 18477, " (c_r = q^r, rounded up)", "it is compared cr = qr times"),
          ("all_kl", 0, 32689, " (only the elimination lines)",
           "we replace lines 5, 6 and 8 in PCOMP, SCOMP and SCOMP2, respectively, with KL-divergence based"),
          ("seed_exponent", 0.5, 21741, " (S: each arm w.p. 1/√K)", "S add elements from B into S w.p. 1/ K"))
      if alg != "pcomp" or par not in ("all_kl", "seed_exponent")),
    PaperParameter("dts_plus", "alpha", 0.51, "Wu & Liu (2016)", WU_LIU_2016, (894, 895),
                   "For algorithms using RUCB and RLCB, including D-TS and D-TS+, we set the scale factor α = 0.51"),
    # BTM (Yue & Joachims 2011), duelbench.algorithms.btm; [16] = Yue & Joachims
    PaperParameter("btm", "gamma", 1.3, "Wu & Liu (2016)", WU_LIU_2016, (893, 894),
                   "For BTM, we set the relaxed factor γ = 1.3 as [16]"),
    PaperParameter("condorcet_savage", None, None, "Wu & Liu (2016) (δ = 1/T as for copeland_savage, not a parameter)",
                   WU_LIU_2016, (892,), "We compare D-TS and D-TS+ with the following algorithms: BTM [16], SAVAGE [17]"),
    PaperParameter("rcs", "alpha", 0.51, "Wu & Liu (2016), RCS among the algorithms using RUCB", WU_LIU_2016,
                   (893, 894, 895),
                   "RUCB [4], RCS [3], CCB [6], SCB [6], RMED1 [5], and ECW-RMED [7]. For BTM, we set the relaxed "
                   "factor γ = 1.3 as [16]. For algorithms using RUCB and RLCB, including D-TS and D-TS+, we set "
                   "the scale factor α = 0.51"),
    PaperParameter("sparring", None, None, "Wu & Liu (2016) (no value printed; alpha: READING_SWITCHES)",
                   WU_LIU_2016, (892, 893), "BTM [16], SAVAGE [17], Sparring [18], RUCB [4]"),
    PaperParameter("random", None, None, "Komiyama et al. (2016)", KOMIYAMA_2016, (305,),
                   "Random is a uniformly random sampling among pairs"),
    PaperParameter("copeland_savage", None, None, "Komiyama et al. (2016) (δ = 1/T, not a parameter)",
                   KOMIYAMA_2016, (305,), r"Copeland SAVAGE with $\delta = 1/T$"),
    PaperParameter("scb", None, None, "Zoghi et al. (2015), Algorithm 3 (constants, not parameters)",
                   ZOGHI_2015, (129,), "and run Algorithm 2 with failure probability log(T)/T"),
)

#: Parameters that switch between readings of a detail the papers do not print (not paper values),
#: with the declared reading as their default.
READING_SWITCHES = {
    # the Indep removal test with <= (declared) or < (variant); duelbench.algorithms.savage
    "copeland_savage": {"strict_independence": 0.0},
    # ζ̃* over all arms (declared, paper 004 L815) or over C (variant); duelbench.algorithms.dts_plus
    "dts_plus": {"zeta_star_over_candidates": 0.0},
    # the SBMs' UCB constant, not printed (paper 004 L892-897): the value of Wu & Liu's code;
    # duelbench.algorithms.sparring
    "sparring": {"alpha": 3.0},
    # Y&J's confidence factor 3 and b' drawn from all of W (Wu & Liu's experiments); duelbench.algorithms.btm
    "btm": {"confidence_factor": 3.0, "opponent_excludes_self": 0.0},
    # a Condorcet winner is assumed to exist (the Condorcet problem); duelbench.algorithms.condorcet_savage
    "condorcet_savage": {"assume_condorcet_winner": 1.0},
}

ROW_IDS = [f"{p.algorithm}-{p.parameter}" for p in PAPER_PARAMETERS]


def _builtin_algorithms() -> list[str]:
    pkg = Path(savage.__file__).resolve().parent
    return [a for a in list_algorithms() if Path(get_algorithm(a).module_file).resolve().parent == pkg]


def _paper_lines(file: str) -> list[str]:
    path = PAPERS_DIR / file
    if not path.is_file():
        pytest.skip(f"paper text {file} not available in {PAPERS_DIR} (the registry values are checked regardless)")
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("{"):  # a JSON record with the text in "full_text"
        text = json.loads(text)["full_text"]
    return text.split("\n")


def _normalise(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


@pytest.mark.parametrize("row", PAPER_PARAMETERS, ids=ROW_IDS)
def test_registry_default_equals_the_published_value(row):
    defaults = get_algorithm(row.algorithm).defaults
    if row.parameter is None:
        # only switches between readings the paper leaves open (READING_SWITCHES), at the declared reading
        switches = READING_SWITCHES.get(row.algorithm, {})
        assert defaults == switches, f"{row.algorithm} has parameters {sorted(defaults)}: declare their paper values"
        return
    assert row.parameter in defaults, f"{row.algorithm} has no parameter {row.parameter!r}"
    assert defaults[row.parameter] == row.value, (
        f"{row.algorithm}.{row.parameter} = {defaults[row.parameter]!r}, but {row.paper} L{row.lines} uses {row.value!r}")
    assert canonical_params(row.algorithm, {})[row.parameter] == row.value
    assert params_array(row.algorithm, canonical_params(row.algorithm, {}))[
        list(defaults).index(row.parameter)] == row.value


@pytest.mark.parametrize("row", PAPER_PARAMETERS, ids=ROW_IDS)
def test_the_paper_line_states_the_value(row):
    lines = _paper_lines(row.file)
    text = _normalise(" ".join(lines[n - 1] for n in row.lines))
    assert _normalise(row.quote) in text, f"{row.file} L{row.lines} does not say {row.quote!r}"
    if row.value is not None and row.algorithm != "rmed1":  # RMED1's values are in Komiyama et al. (2015a)
        assert f"{row.value}" in text.replace("$", "")


def test_every_builtin_algorithm_declares_its_paper_parameters():
    declared = {}
    for p in PAPER_PARAMETERS:
        declared.setdefault(p.algorithm, set())
        if p.parameter is not None:
            declared[p.algorithm].add(p.parameter)
    builtins = _builtin_algorithms()
    assert {"rucb", "ccb", "rmed1", "ecw_rmed", "dts", "random", "copeland_savage", "scb"} <= set(builtins)
    missing = sorted(set(builtins) - set(declared))
    assert not missing, f"built-in algorithms without a row in PAPER_PARAMETERS: {missing}"
    for alg in builtins:
        spec = get_algorithm(alg)
        assert declared[alg] == set(spec.defaults) - set(READING_SWITCHES.get(alg, {})), (
            f"{alg}: parameters {sorted(get_algorithm(alg).defaults)} but paper values declared for "
            f"{sorted(declared[alg])}")


# --------------------------------------------------------------------------- effects
@pytest.mark.parametrize("K", [2, 5, 16, 136])
def test_rmed1_f_of_K_is_0_3_K_to_the_1_01(K):
    """RMED1's exploration slack f(K) = 0.3 K^1.01 (Komiyama et al. 2015a, adopted at paper 000 L305)."""
    state = rmed.init(K, params_array("rmed1", canonical_params("rmed1", {})))
    f_K = state[-1]
    assert f_K == pytest.approx(0.3 * K**1.01, rel=1e-14)


@pytest.mark.parametrize("algorithm", ["rucb", "ccb", "dts"])
def test_rucb_bound_with_the_default_alpha(algorithm):
    """u_ij = W_ij/N_ij + sqrt(α ln t / N_ij) with α = 0.51 (Zoghi et al. 2014; paper 000 L305, paper 004 L895)."""
    alpha = get_algorithm(algorithm).defaults["alpha"]
    W = np.array([[0.0, 7.0], [3.0, 0.0]])
    for t in (1, 2, 10, 1000):
        lt = math.log(t)
        assert ucb(W, 0, 1, lt, alpha) == pytest.approx(0.7 + math.sqrt(0.51 * lt / 10), rel=1e-15)
        assert lcb(W, 1, 0, lt, alpha) == pytest.approx(0.3 - math.sqrt(0.51 * lt / 10), rel=1e-15)


@pytest.mark.parametrize("K, T", [(2, 10), (5, 1000), (6, 70000), (16, 20000), (136, 10**7)])
def test_savage_delta_is_one_over_T(K, T):
    """Copeland SAVAGE with δ = 1/T (paper 000 L305): radius sqrt(ln(K(K−1)T/δ)/(2n)), T the horizon."""
    delta = 1.0 / T
    expected = math.log(K * (K - 1) * T / delta)
    assert savage.savage_log_term(K, T) == pytest.approx(expected, rel=1e-13)
    state = savage.init(K, T, params_array("copeland_savage", canonical_params("copeland_savage", {})))
    assert state[-1][0] == savage.savage_log_term(K, T)
    assert get_algorithm("copeland_savage").needs_horizon  # T is known, so δ = 1/T can be formed
    for n in (1, 10, 1000):
        assert hoeffding_radius(n, state[-1][0]) == pytest.approx(math.sqrt(expected / (2 * n)), rel=1e-13)


def test_savage_interval_test_is_strict():
    """An interval [mû − c, mû + c] whose end lies exactly on 1/2 does not exclude it."""
    # (2w − n)² = 2 n log_term exactly: w = 3, n = 4 → 4 = 8·log_term → log_term = 0.5
    assert hoeffding_side(3.0, 4, 0.5) == 0
    assert hoeffding_side(3.0, 4, 0.5 - 1e-12) == 1
    assert hoeffding_side(1.0, 4, 0.5 - 1e-12) == -1


@pytest.mark.parametrize("r", [1, 2, 3, 4, 5])
def test_scb_phase_lengths_and_failure_probability(r):
    """Zoghi et al. (2015) Algorithm 3 (L126–131): T = 2^(2^r), failure probability δ = log(T)/T (natural log)."""
    T = 2 ** (2**r)
    assert scb.phase_length(r) == T
    assert scb.phase_log_delta(r) == pytest.approx(math.log(math.log(T) / T), rel=1e-13, abs=1e-13)


@pytest.mark.parametrize("K", [2, 5, 16])
def test_scb_confidence_levels(K):
    """Reward test at level ln(4K²/δ) (1 − δ/K², L114, with the anytime union bound over n of the
    docstring); Algorithm 4 line 10 (L916): t·d(S_i/t, q) ≤ ln(4tK/δ) + 2 ln ln t."""
    state = scb.init(K, params_array("scb", {}))
    st, fl = state[0], state[1]
    for r in (1, 2, 3, 4):
        scb.start_phase(state, r)
        T = 2 ** (2**r)
        delta = math.log(T) / T
        assert st[scb.PHASE] == r and st[scb.PH_LEN] == T
        assert fl[scb.LOG_4KK_DELTA] == pytest.approx(math.log(4 * K * K / delta), rel=1e-13)
        assert fl[scb.LOG_4K_DELTA] == pytest.approx(math.log(4 * K / delta), rel=1e-13)
        for t in (2, 3, 16, 1000):
            assert scb.level(fl, t) == pytest.approx(math.log(4 * t * K / delta) + 2 * math.log(math.log(t)), rel=1e-13)


def test_scb_documented_numerical_constants():
    """The bisection tolerance and phase-length saturation stated in the module docstring."""
    assert scb.KL_TOL == 1e-10
    assert scb.MAX_LOG2_LEN == 62
    assert scb.phase_length(6) == 2**62  # 2^(2^6) saturates
    assert get_algorithm("scb").defaults == {} and not get_algorithm("scb").needs_horizon
