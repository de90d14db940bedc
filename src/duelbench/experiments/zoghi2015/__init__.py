"""Zoghi, Karnin, Whiteson & de Rijke, "Copeland Dueling Bandits" (NIPS 2015; arXiv full version).

Paper text ``shared/papers/001_46dfb6e9ef9a8784.txt`` (``Lnnn`` = its line numbers). Readings of
its ambiguities are Z1-Z7 of ``data/published/zoghi2015.yaml`` (declared before any run); the
settings are section ``zoghi2015`` of ``config/config.yaml`` (schema
``workflow/schemas/zoghi2015.schema.yaml``).

Reproduced
----------
* Regret figures (:mod:`.regret`): Figure 1 (5-armed MSLR problem without a Condorcet winner;
  CCB, SCB, Copeland SAVAGE, RUCB), Figure 2 (500-armed synthetic problem; CCB, SCB, RUCB),
  Figure 3 (Condorcet example; CCB, RUCB) and a labelled gap-sensitivity variant of Figure 2.
  Regret is Definition 1 (kind ``copeland_zoghi``).
* Appendix C (:mod:`.appendix_c`: samples and per-sample statistics; :mod:`.appendix_c_tables`,
  :mod:`.appendix_c_figures`): Figure 4 (probability of a Condorcet winner in random K-subsets,
  three click models), Table 1 (overlap of winner notions), Figure 5 (C and L_C), Figure 6
  (Delta^2 / Delta_min^2).
* ``checks.csv`` (:mod:`.checks`): every check of the registry, evaluated at the active fidelity.
* Timing tables (:mod:`.timing`; host dependent, not results): ``throughput.csv`` and
  ``appendix_c_cost.csv``.

The experiment is :class:`Zoghi2015` on the framework's base class
(:class:`~duelbench.experiments.experiment.Experiment`): it declares the simulation shards of the
regret items, one sample family per click model (Appendix C), five steps (``appendix_c_tables``,
``appendix_c_figures``, ``regret_aggregate``, ``regret_figures``, ``checks``) and the paper's items
with their captions; settings checks, regret items, shards and families are in :mod:`.config`.
Outputs (:attr:`Zoghi2015.output_files`) go under ``<figures>/zoghi2015/``, each with a ``.json``
provenance sidecar.

Statistics (the ``statistic`` names of the registry)
----------------------------------------------------
A statistic the active fidelity cannot produce (e.g. a pooled Table-1 cell when not every K
was sampled, an ordering test with too few runs) is reported ``inconclusive`` with the reason.
"The samples" are the Appendix-C samples of the informational click model unless said otherwise.

``facts:informational_has_no_cw``
    The full 136-arm informational matrix has no Condorcet winner
    (:func:`duelbench.problems.winners.condorcet_winner` is None).
``facts:navigational_and_perfect_have_cw``
    The full navigational and perfect matrices both have a Condorcet winner.
``facts:full_delta_ratio``
    ``Delta^2 / Delta_min^2`` of the full informational matrix (Delta: Definition 3.6, L175;
    Delta_min: Definition 3.2, L159; both from :func:`duelbench.bounds.ccb.ccb_quantities`),
    unrounded (the registry's region holds the printed integer's rounding).
``fig4:endpoints``
    ``P_1 = 1`` and ``P_136 = 0`` (``P_K``: fraction of the samples of size K with a Condorcet
    winner). Needs K = 1 and K = 136 to be sampled.
``fig4:decreases_rapidly``
    Two components: Spearman's rank correlation of (K, P_K) over K = 1..136 plus 0.95, and the
    largest P_K over K >= 100 minus 0.5 (the claim: both below 0), each with bootstrap replicates
    (every K's samples redrawn, i.e. its count of Condorcet samples drawn from Binomial(n_K,
    P_K); seed ``seed``, key the statistic's name). Needs every K.
``table1:<a>:<b>`` (``a``, ``b`` in copeland, von_neumann, borda, random_walk)
    Percentage of samples whose winner sets of notions a and b intersect, pooled with equal
    weight over K = 1..136 (Z6): ``100 x mean_K p_K``; s.e. ``100 x sqrt(sum_K p_K (1 - p_K) /
    n_K) / 136``. Main reading: von Neumann = union support (tolerance ``support_tol``), random
    walk = chain ``random_walk_main`` (RW-C). Needs every K.
``table1:copeland_in_vn_support``
    Likewise, the percentage of samples in which every Copeland winner is in the von Neumann
    support.
``table1:ordering_as_stated``
    Eight components: each of the Copeland/von Neumann and Borda/random-walk overlaps minus each
    of the four cross overlaps (Copeland/Borda, Copeland/random walk, von Neumann/Borda, von
    Neumann/random walk), in points, with the sum of the two cells' s.e. as its s.e. (an upper
    bound whatever the correlation of two cells of the same samples).
``fig5:c_and_lc_small``
    The largest, over K in 20..136 and q in {C, L_C}, of the 99th percentile of q over the
    samples of size K divided by ``floor(K/5) + 1`` (below 1 exactly when every such percentile
    is at most K/5). Percentile: the smallest sampled value v such that at least 99% of the
    samples are <= v (inverted empirical CDF). Bootstrap replicates redraw every K's samples
    (multinomial counts). Needs every K >= 20.
``fig6:mean_over_k``
    The mean over K = 2..136 of the per-K mean of ``Delta^2 / Delta_min^2`` (samples with C = K
    excluded, Z7), with s.e. ``sqrt(sum_K se_K^2) / 135``. Needs every K.
``fig6:mean_at_135``
    The mean ratio at K = 135, with its s.e. (s.d. / sqrt(n)).
``order:<dataset>:<A>:<B>``
    Per-run cumulative regret (Definition 1) at the horizon T of the item that shows
    ``dataset``, of algorithms A and B: the samples ``a`` and ``b`` (independent runs); the value
    is mean A / mean B. The evidence gives each sample's run-to-run std/mean.
``growth:mslr5_noncondorcet:rucb``
    RUCB's regret on Figure 1's problem at T (``a``) and at T/2 (``b``), per run (paired): the
    value is R(T)/R(T/2) of the means (2 for linear growth, about 1.04 for logarithmic growth at
    T = 2x10^7).
``savage:mslr5_noncondorcet:r2e7_over_r1e7``
    Per-run regret of the SAVAGE job at horizon 2x10^7 (``a``) and of the separate job at 10^7
    (``b``), paired by run (run r of each horizon starts from the same stream); the value is the
    ratio of their means. Only at horizon T = 2x10^7 (paper fidelity); otherwise inconclusive,
    with the same comparison of T and T/2 in the evidence.
``transition:zoghi_copeland500:<alg>``
    Per run: the per-step regret over the last decade [T/10, T] (``a``) and over the first decade
    after 10^3, [a, b] with a and b the checkpoints nearest (in log scale) to 10^3 and 10^4
    (``b``), paired; the value is the ratio of their means, the slope ratio of the mean regret
    curve. Needs T >= 10^5.
``theory:synth500_structure``
    The matrix ``zoghi_copeland500`` has exactly 3 Copeland winners, each with Copeland score
    498, in a cycle (each beats exactly one other winner), and the scores of the other 497 arms
    range from 0 to 496 (minimum 0, maximum 496; whether they are distinct is in the evidence).
``theory:mslr5_noncondorcet_structure``
    ``mslr5_noncondorcet`` has C = 3 and L_C = 1 (bounds.ccb) and no Condorcet winner.
``theory:delta_star_ge_delta``
    ``Delta*_ij >= Delta_ij`` for all i != j on the matrices of Figures 1-3, where ``Delta*_ij =
    Delta*_i + Delta_ij`` if ``p_ij >= 1/2`` and ``max(Delta*_i, Delta_ij)`` otherwise
    (Definition 3.5, L171), composed from bounds.ccb's ``Delta*_i`` and ``Delta_ij``.
"""

from __future__ import annotations

from collections.abc import Mapping

from duelbench.config import data_file, dataset_inputs
from duelbench.engine.jobs import ShardSpec

from ..contract import Item, SampleShard, Step
from ..experiment import Experiment
from ..instances import RegretInstance
from . import appendix_c_figures, appendix_c_tables, checks, regret
from .appendix_c import CLICK_MODELS, N_ARMS
from .config import (
    appendix_c_samples,
    check_settings,
    item_settings,
    ITEM_TITLES,
    KINDS,
    MAIN_CLICK_MODEL,
    NAME,
    REGRET_ITEMS,
    regret_shards,
)

#: Outputs of the Appendix-C tables step and of the Appendix-C figures step.
APPENDIX_C_TABLES = ("condorcet_csv", "table1_csv", "table1_se_csv", "table1_long_csv", "table1_md", "c_lc_csv",
                     "delta_ratio_csv", "appendix_c_cost_csv")
APPENDIX_C_FIGURES = ("figure4_pdf", "figure4_png", "figure5_pdf", "figure5_png", "figure6_pdf", "figure6_png")
#: The Appendix-C tables the figures and the checks read.
APPENDIX_C_DATA = ("condorcet_csv", "table1_long_csv", "c_lc_csv", "delta_ratio_csv")


class Zoghi2015(Experiment):
    """Figures 1-6 and Table 1 of Zoghi et al. (2015), the gap-sensitivity variant of Figure 2,
    two host-dependent timing tables and the registry's checks."""

    name = NAME
    kinds = KINDS
    output_files = {
        "condorcet_csv": "condorcet_probability.csv", "figure4_pdf": "figure4.pdf", "figure4_png": "figure4.png",
        "table1_csv": "table1_overlap.csv", "table1_se_csv": "table1_overlap_se.csv",
        "table1_long_csv": "table1_overlap_long.csv", "table1_md": "table1_overlap.md",
        "c_lc_csv": "c_lc_distribution.csv", "figure5_pdf": "figure5.pdf", "figure5_png": "figure5.png",
        "delta_ratio_csv": "delta_ratio.csv", "figure6_pdf": "figure6.pdf", "figure6_png": "figure6.png",
        "appendix_c_cost_csv": "appendix_c_cost.csv",
        "regret_csv": "regret.csv", "throughput_csv": "throughput.csv", "checks_csv": "checks.csv",
        **{f"{item}_{ext}": f"{item}.{ext}" for item in REGRET_ITEMS for ext in ("pdf", "png")},
    }
    #: The paper's own tables and figures among the items, with the registry items whose checks
    #: judge them.
    paper_items = {**{f"figure{k}": (f"Figure {k}",) for k in range(1, 7)},
                   "table1": ("Table 1", "Table 1 (calibrated random-walk cells)")}
    curves = ("regret_csv", KINDS[0])

    def check(self, s: dict) -> None:
        check_settings(s)

    def shards(self, s: Mapping) -> list[ShardSpec]:
        """Every simulation shard of the regret items."""
        return [sp for specs in regret_shards(s).values() for sp in specs]

    def regret_instances(self, s: Mapping) -> list[RegretInstance]:
        """Figures 1-3 (one panel each) with their curves, the figure's ``runs`` x ``horizon``,
        Definition 1's regret (the gap-sensitivity datasets are the suite's, not the paper's)."""
        out = []
        for item in ("figure1", "figure2", "figure3"):
            it = item_settings(s, item)
            out += [RegretInstance(NAME, f"Figure {item[-1]}", d, it["horizon"], it["runs"], it["runs_per_shard"],
                                   int(s["seed"]), KINDS[0], tuple(it["algorithms"])) for d in it["datasets"]]
        return out

    def samples(self, s: Mapping) -> list[SampleShard]:
        """One Appendix-C sample family per click model (:func:`.config.appendix_c_samples`)."""
        return appendix_c_samples(s)

    def steps(self, s: Mapping, out: Mapping[str, str], config: Mapping) -> list[Step]:
        """appendix_c_tables, appendix_c_figures, regret_aggregate, regret_figures, checks."""
        data = str(config.get("data", "data")).rstrip("/")
        matrices = sorted({f for m in CLICK_MODELS for f in dataset_inputs(m, data)})
        registry = str(data_file(NAME))
        generated = str(data_file(NAME, "generated"))

        def named(keys):
            return {k: out[k] for k in keys}

        return [
            Step("appendix_c_tables", appendix_c_tables.write_tables, named(APPENDIX_C_TABLES),
                 inputs={"registry": registry}, samples=tuple(s["appendix_c"]["click_models"]),
                 settings=s, message="Zoghi 2015 Appendix C: Figure 4, Table 1, Figure 5, Figure 6 tables"),
            Step("appendix_c_figures", appendix_c_figures.write_figures, named(APPENDIX_C_FIGURES),
                 inputs=named(APPENDIX_C_DATA), settings=s, message="Zoghi 2015 Appendix C: Figures 4, 5 and 6"),
            Step("regret_aggregate", regret.aggregate, named(("regret_csv", "throughput_csv")), shards=True,
                 settings=s, message="Zoghi 2015: aggregating the regret shards"),
            Step("regret_figures", regret.figures,
                 named(f"{item}_{ext}" for item in REGRET_ITEMS for ext in ("pdf", "png")),
                 inputs={"regret_csv": out["regret_csv"]}, settings=s,
                 message="Zoghi 2015: Figures 1-3 and the gap sensitivity"),
            Step("checks", checks.write_checks, {"csv": out["checks_csv"]}, shards=True,
                 inputs={**named(APPENDIX_C_DATA), "matrices": matrices, "registry": registry,
                         "generated": generated},
                 settings=s, message=f"Zoghi 2015: evaluating data/published/zoghi2015.yaml at fidelity {s['fidelity']}"),
        ]

    def items(self, s: Mapping, out: Mapping[str, str]) -> list[Item]:
        """The paper's figures and tables (and the suite's own tables), with their captions."""
        a = s["appendix_c"]
        ks = a["k_values_resolved"]
        krange = "K = 1..136" if ks == list(range(1, N_ARMS + 1)) else f"K in {ks} only"
        samples = f"{int(a['samples_per_k'])} uniform K-subsets per K, {krange} (fidelity {s['fidelity']})"

        def regret(item: str) -> str:
            it = item_settings(s, item)
            algs = ", ".join(e.label or e.name for e in it["algorithms"])
            return (f"Suite: {algs} on {', '.join(it['datasets'])}; mean cumulative regret (Definition 1, kind "
                    f"copeland_zoghi, Z3) ± 1 s.e. over {it['runs']} runs, T = {it['horizon']:g}, log x (fidelity "
                    f"{s['fidelity']}); horizons and runs are not printed in the paper (Z3).")

        # The frame rule is presentation only (checks read regret.csv); FRAME_ALGORITHMS of .regret.
        FRAME = ("Semilog axes as the paper (L385); the y axis ends at 1.15 x the largest mean regret of the two "
                 "curves the text compares (Figure 1: CCB and SAVAGE; Figure 2 and the gap variant: SCB and CCB; "
                 "Figure 3: CCB and RUCB), and curves above it are marked where they leave the frame and listed with "
                 "their value at T (the paper truncates RUCB in Figure 1, L392).")

        def fig(key: str, *data: str) -> tuple[str, ...]:
            return (out[f"{key}_png"], out[f"{key}_pdf"], *(out[d] for d in data))

        return [
            Item("figure1", "figure", ITEM_TITLES["figure1"],
                 "Paper (Appendix A, L387-L392): regret of CCB, SCB, Copeland SAVAGE, PBR, RankEl and RUCB on a "
                 "5-armed ranker-evaluation problem without a Condorcet winner; CCB outperforms all, RUCB grows "
                 "linearly, and SAVAGE's points are independent runs per horizon (its regret at 2x10^7 is lower than "
                 "at 10^7). " + regret("figure1") + " The matrix is the full-precision 5-ranker submatrix of the "
                 "informational MSLR matrix (Z1). Algorithms that need the horizon (SAVAGE) run once per point of "
                 "a log grid of horizons and once more at T/2, drawn as markers (common random numbers, not "
                 "continuations). PBR and RankEl are not implemented. " + FRAME,
                 fig("figure1", "regret_csv")),
            Item("figure2", "figure", ITEM_TITLES["figure2"],
                 "Paper (L394-L401): CCB, SCB and RUCB on a 500-armed synthetic problem whose 3 Copeland winners "
                 "(score 498) form a cycle, the other arms scoring 0..496; SCB substantially outperforms CCB, with "
                 "sharp transitions. " + regret("figure2") + " The instance is the generator of "
                 "data/generated/zoghi2015.yaml (Z2): a transitive order below the cycle, every gap 0.1 (the paper "
                 "prints no magnitudes). " + FRAME,
                 fig("figure2", "regret_csv")),
            Item("figure3", "figure", ITEM_TITLES["figure3"],
                 "Paper (L403-L406): CCB and RUCB on a 5-armed example with a Condorcet winner; CCB enjoys a slight "
                 "advantage. " + regret("figure3") + " The matrix is a full-precision 5-ranker submatrix of the "
                 "informational MSLR matrix with a Condorcet winner (Z1). " + FRAME,
                 fig("figure3", "regret_csv")),
            Item("sensitivity", "figure", ITEM_TITLES["sensitivity"],
                 "Not a paper figure: a labelled variant of Figure 2 with the 500-arm generator's gaps all 0.2 and "
                 "all 0.4, showing that the gap magnitudes (not printed in the paper) decide whether the sharp "
                 "transitions appear by T. " + regret("sensitivity") + " " + FRAME,
                 fig("sensitivity", "regret_csv")),
            Item("figure4", "figure", "Figure 4: probability of a Condorcet winner in random K-subsets",
                 "Paper (Appendix C.1, L422-L429): the probability P_K that K of the 136 feature rankers, chosen at "
                 "random, have a Condorcet winner, from 10,000 subsets per K; it decreases rapidly in K. Suite: "
                 f"{samples} of the click models {', '.join(a['click_models'])}; P_K ± binomial s.e. A sample is "
                 "the sorted uniform K-subset drawn without replacement from a stream that depends only on (seed, "
                 "click model, K, index) (Z5); the same samples serve Table 1 and Figures 5-6.",
                 fig("figure4", "condorcet_csv")),
            Item("table1", "table", "Table 1: overlap of winner notions",
                 "Paper (Appendix C.2, L433-L442): the percentage of sampled matrices whose Copeland, von Neumann, "
                 "Borda and random-walk winner sets overlap, and 94.2% with every Copeland winner in the von Neumann "
                 f"support. Suite: the {MAIN_CLICK_MODEL} samples ({samples}), pooled with equal weight over K (Z6), "
                 "± the s.e. of the mean of independent per-K proportions. Readings (Z6): Copeland = most wins; "
                 "Borda = largest sum of p_ij; von Neumann = the "
                 f"{a['von_neumann_support']} support (tolerance {float(a['support_tol']):g}; the LPs are solved on "
                 "the top cycle, which is exact); random walk = the stationary distribution's argmax of chain "
                 f"RW-{a['random_walk_main']}. That chain was chosen with knowledge of the table, so the random-walk "
                 "cells are marked calibrated: reported, not claimed as replicated. The other chains and the other "
                 "support are labelled variants (table1_overlap_long.csv, table1_overlap.md), and the Markdown "
                 "prints the published value beside each cell.",
                 (out["table1_md"], out["table1_csv"], out["table1_se_csv"], out["table1_long_csv"])),
            Item("figure5", "figure", "Figure 5: C and L_C of the random K-subsets",
                 "Paper (Appendix C.3, L444-L450): how often each number of Copeland winners C and each number of "
                 "losses L_C of a Copeland winner occurs per K (circle area proportional to the percentage of the "
                 f"samples of size K). Suite: the {MAIN_CLICK_MODEL} samples ({samples}); C and L_C from "
                 "bounds.ccb, the same bubble plots.",
                 fig("figure5", "c_lc_csv")),
            Item("figure6", "figure", "Figure 6: Delta^2 / Delta_min^2 of the random K-subsets",
                 "Paper (Appendix C.4, L452-L457): the average over the sampled matrices of the ratio of the two "
                 "bounds, Delta (Definition 3.6) against Delta_min (Definition 3.2), per K. Suite: the mean and the "
                 f"median of Delta^2 / Delta_min^2 over the {MAIN_CLICK_MODEL} samples ({samples}) with C < K, "
                 "excluding C = K where Delta is undefined (Z7), K >= 2, log y; the dotted line is the value at "
                 "K = 136 (the full matrix) when sampled.",
                 fig("figure6", "delta_ratio_csv")),
            Item("checks", "checks", "Checks of the paper's claims",
                 f"Every check of data/published/zoghi2015.yaml evaluated at fidelity {s['fidelity']}: pass, fail or "
                 "inconclusive, with the value, tolerance, test and evidence (statistics defined in the "
                 "duelbench.experiments.zoghi2015 docstring). A statistic the fidelity cannot produce is "
                 "inconclusive with the reason: pooled Table-1 cells, Figure 4's trend and the Figure 5-6 summaries "
                 "need every K; the ordering tests need enough runs; the sharp-transition statistic needs "
                 "T >= 10^5; the SAVAGE non-monotonicity needs T = 2x10^7.",
                 (out["checks_csv"],)),
            Item("throughput", "table", "Simulation throughput (host dependent)",
                 "Not a paper item: steps per second (wall and CPU) of every simulation job, from the shard "
                 "sidecars. A measurement of this host, not a result; shards read from the results archive carry "
                 "no timing (NaN, source archive).",
                 (out["throughput_csv"],)),
            Item("appendix_c_cost", "table", "Appendix C cost per sample (host dependent)",
                 "Not a paper item: wall and CPU seconds per sample of every Appendix-C sample shard, from the "
                 "shard sidecars. A measurement of this host, not a result; shards read from the results archive "
                 "carry no timing (NaN, source archive).",
                 (out["appendix_c_cost_csv"],)),
        ]


EXPERIMENT = Zoghi2015()
