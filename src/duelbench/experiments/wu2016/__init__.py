"""Wu & Liu (NIPS 2016), Double Thompson Sampling: Figures 1-2 and the claims of Section 5.

Paper: "Double Thompson Sampling for Dueling Bandits", text
``shared/papers/004_c659c680f71351ae.txt`` (line numbers ``Lnnn`` of its ``full_text``).  The
readings W1-W8 of ``data/published/wu2016.yaml`` are declared in ``config/config.yaml`` (section
``wu2016``); this package carries them out on the experiment contract
(:mod:`duelbench.experiments.contract`).  Modules: :mod:`.curves` (aggregate, Figure 1, the
traces table), :mod:`.figure2` (Figure 2), :mod:`.checks` (statistics, ``checks.csv``),
:mod:`.traces` (traced runs of D-TS and D-TS+, sample shards).

Panels
------
Figure 1 has two panels, named by role in the settings and in every statistic: ``condorcet``
(Figure 1(a), "K = 5, Condorcet", T = 10^6) and ``noncondorcet`` (Figure 1(b), "K = 5,
non-Condorcet", T = 10^7).  Each panel runs every entry of ``algorithms`` except those it lists
under ``skip`` (SAVAGE is run in one variant per panel, W4); statistics call the panel's SAVAGE
``savage``.

What is built (under :func:`duelbench.config.figures_dir` ``(config, "wu2016")``; every
output has a ``.json`` provenance sidecar)
--------------------------------------------------------------------------------------------
``regret.csv``
    Mean cumulative Copeland regret (Eq. (1), W3) and its standard error per panel, curve and
    checkpoint (columns ``panel, dataset, algorithm, label, param_hash, t, mean, stderr,
    n_runs``).
``final_regret.csv``
    Per-run cumulative regret at the panel's horizon (``at = "T"``) and at Figure 2's time
    (``at = "figure2"``, for the algorithms of ``figure2.shown``).
``run_slopes.csv``
    Per run of the curves of :data:`SLOPE_ALGORITHMS` on each panel: the regret at the
    checkpoint t0 nearest T/10 (on the log scale) and at T, and the least-squares slope of the
    run's regret against ln t over the checkpoints in [T/10, T] (columns ``panel, dataset,
    algorithm, label, param_hash, run, t0, t, regret_t0, regret_t, slope``). The slope is linear
    in the regret, so the mean of the runs' slopes is the slope of the mean curve.
``traces.csv``
    One row per traced run (``traces``: the first ``runs`` runs of the curves of
    ``traces.curves`` on each panel, :mod:`.traces`): the replayed R(T) and the simulated
    one (equal, checked), the steps at which the RUCB bounds removed a candidate, and per arm
    of the dataset the steps and the regret with that arm as first candidate a(1).
``figure1.png|pdf``
    The two panels: semilog axes as the paper (log t, linear regret), y range the paper's
    (``panels.<p>.ylim``; curves above it are marked where they leave and listed with their
    value at T), mean ± 1 s.e. bands.
``figure2.csv``, ``figure2.md``, ``figure2.png|pdf``
    STD of the regret at Figure 2's time over ECW-RMED's mean (W8, the caption) and over the
    algorithm's own mean, per panel and algorithm; the figure has one panel per normalisation,
    the published bars beside the reproduced ones in both.
``checks.csv``
    Every check of ``data/published/wu2016.yaml`` at the active fidelity.

Statistics (the ``statistic`` names of the registry; computed in :mod:`.checks`)
--------------------------------------------------------------------------------------------
``<p>`` is a panel name, ``<A>``/``<B>`` registry names (or ``savage``: the panel's SAVAGE).
A statistic the active fidelity does not produce is ``inconclusive`` with the reason.

``facts:noncondorcet:three_winners_zeta_3_4``
    The panel's matrix has exactly three Copeland winners, each beating 3 of the 4 others.
``facts:condorcet:has_condorcet_winner``
    The panel's matrix has a Condorcet winner.
``theory:assumptions_1_2``
    On both panels' matrices: no p_ij = 1/2 for i != j (Assumption 1, L462) and, for every arm
    i outside the Copeland winners with sorted superiors sigma_i (p_{sigma_i(1), i} >= ... ),
    p_{sigma_i(L_C + 1), i} > p_{sigma_i(j), i} for all j > L_C + 1 (Assumption 2, L689), with
    L_C the number of arms that beat a Copeland winner.
``order:<p>:<A>:<B>``
    Samples ``a``, ``b``: the per-run final regret of A and B on the panel (registry Welch tests).
``reldiff:<p>:<A>:<B>``
    ``|mean A - mean B| / mean B`` of the final regret, with bootstrap replicates over the runs.
``slope_ratio:<p>:<A>:<B>``
    Ratio of the least-squares slopes of the mean regret against ln t over the checkpoints
    t in [T/10, T] of A and of B; samples ``a``, ``b``: the runs' own slopes (their means are
    the mean curves' slopes), so the ratio is a ratio of means.
``log_flatness:<p>:<A>``
    ``(R(T)/ln T) / (R(t0)/ln t0)`` of the mean regret, t0 the checkpoint nearest T/10; paired
    samples ``a`` = R(T)/ln T and ``b`` = R(t0)/ln t0 of each run.
``clusters:condorcet``
    Components: mean final regret of each of D-TS, D-TS+ over each of RCS, RMED1, ECW-RMED and
    of each of RCS, RMED1, ECW-RMED over each of RUCB, CCB (Figure 1(a)'s label groups, L968).
``label_order:noncondorcet``
    Components: mean final regret of each curve over the curve labelled above it, for the
    consecutive pairs of Figure 1(b)'s labels CCB, D-TS, ECW-RMED, D-TS+ (L968).
``std_over_ecw:<p>:<A>``
    Sample STD (ddof = 1) of A's regret at Figure 2's time over ECW-RMED's mean regret there,
    with bootstrap replicates over the runs (A's and ECW-RMED's resampled independently; one
    resampling when A is ECW-RMED).
``std_order:noncondorcet``
    Components: STD of D-TS+ over STD of D-TS, STD of D-TS over STD of ECW-RMED at Figure 2's
    time, each with bootstrap replicates.
``std_ratio:<p>:<A>:<B>``
    STD of A over STD of B at Figure 2's time, with bootstrap replicates.
``rucb_elimination``
    Components, one per traced curve and panel: the share of the steps t <= T at which the RUCB
    bounds of lines 4-6 of Algorithm 1 removed at least one arm from the candidate set C, over
    the traced runs, with bootstrap replicates over them.
``winner_first_min_share:<p>:<A>``
    The smallest, over the panel's Copeland winners w, of the share of the steps with a(1) = w
    in A's traced runs, with bootstrap replicates.
``winner_first_regret_share:<p>:<A>``
    The share of A's regret at T incurred at steps whose first candidate a(1) is a Copeland
    winner, over A's traced runs, with bootstrap replicates.

Bootstrap replicates (``reldiff``, ``std_*``, the traced statistics) are
:func:`duelbench.report.verdict.bootstrap` over runs with the declared ``seed`` and the statistic
name as key, :data:`duelbench.report.verdict.BOOTSTRAP_REPLICATES` replicates.

Decisions
---------
* Figure 2's time is a checkpoint of every run that reaches it: the final point of (a) and the
  10^6 checkpoint of (b)'s 10^7 runs (W2); the engine's default checkpoints contain every
  multiple of T/20, so 10^6 is recorded in (b).
* BTM and SAVAGE need T and run once per point of the horizon grid of
  :func:`duelbench.engine.checkpoints.horizon_mode_checkpoints` (12 log-spaced points up to T),
  each point an independent run as L896-L897 describes; their curves join those points.
* y ranges: the paper's top y tick of each panel (1500 in (a), 15 x 10^4 in (b), L968) is the
  top of the frame at paper fidelity; at other fidelities (shorter horizons) the frame is fitted
  to the curves the text compares (D-TS, D-TS+, ECW-RMED, RMED1, CCB) with 15% headroom.
"""

from __future__ import annotations

from collections.abc import Mapping

from duelbench.config import data_file, dataset_inputs
from duelbench.engine.jobs import ShardSpec, plan_shards

from ..contract import Item, SampleShard, Step
from ..experiment import Experiment
from ..instances import RegretInstance
from ..samples import plan_samples
from . import checks, curves, figure2, traces
from .config import (
    KINDS,
    NAME,
    PANELS,
    SLOPE_ALGORITHMS,
    check_settings,
    curve_settings,
    figure2_time,
    panel_curves,
    trace_curves,
    trace_family,
)


class WuLiu2016(Experiment):
    """Figures 1 and 2 of Wu & Liu (2016), the traced runs and the registry's checks."""

    name = NAME
    kinds = KINDS
    output_files = {
        "regret": "regret.csv", "final": "final_regret.csv", "slopes": "run_slopes.csv", "traces": "traces.csv",
        "figure1_pdf": "figure1.pdf", "figure1_png": "figure1.png",
        "figure2_csv": "figure2.csv", "figure2_md": "figure2.md", "figure2_pdf": "figure2.pdf",
        "figure2_png": "figure2.png", "checks": "checks.csv",
    }
    #: The paper's own figures among the items, with the registry items whose checks judge them.
    paper_items = {"figure1": ("Figure 1",), "figure2": ("Figure 2",)}
    curves = ("regret", "copeland")

    def check(self, s: dict) -> None:
        check_settings(s)

    def shards(self, s: Mapping) -> list[ShardSpec]:
        """Every simulation shard: each panel's curves, ``runs`` x the panel's horizon."""
        return [sp for p, panel in s["panels"].items() for e in panel_curves(s, p)
                for sp in plan_shards(fidelity=s["fidelity"], dataset=panel["dataset"], algorithm=e.name,
                                      params=e.params, horizon=int(panel["horizon"]), runs=int(s["runs"]),
                                      runs_per_shard=int(s["runs_per_shard"]), seed=int(s["seed"]), root=s["results"])]

    def regret_instances(self, s: Mapping) -> list[RegretInstance]:
        """Figure 1's panels (a) Condorcet and (b) non-Condorcet with their curves, ``runs`` x
        the panel's horizon."""
        return [RegretInstance(NAME, f"Figure 1({chr(ord('a') + i)})", panel["dataset"], int(panel["horizon"]),
                               int(s["runs"]), int(s["runs_per_shard"]), int(s["seed"]), KINDS[0],
                               tuple(panel_curves(s, p)))
                for i, (p, panel) in enumerate((p, s["panels"][p]) for p in PANELS)]

    def samples(self, s: Mapping) -> list[SampleShard]:
        """The traced runs as sample shards: per panel, runs ``0 … traces.runs − 1`` of every traced
        curve (sample ``i`` is run ``i % runs`` of curve ``i // runs``), ``traces.runs_per_shard``
        per shard; none when ``traces.runs`` is 0."""
        runs = int(s["traces"]["runs"])
        out = []
        for p, panel in s["panels"].items():
            traced = trace_curves(s, p)
            if not runs or not traced:
                continue
            job = {"dataset": panel["dataset"], "horizon": int(panel["horizon"]), "seed": int(s["seed"]),
                   "runs": runs, "curves": [[e.name, dict(e.params)] for e in traced]}
            out += plan_samples(experiment=NAME, family=trace_family(p), function=traces.trace_samples, job=job,
                                n=runs * len(traced), per_shard=int(s["traces"]["runs_per_shard"]),
                                fidelity=s["fidelity"], root=s["results"], datasets=(panel["dataset"],))
        return out

    def steps(self, s: Mapping, out: Mapping[str, str], config: Mapping) -> list[Step]:
        """aggregate, traces, figure1, figure2, checks."""
        data = str(config.get("data", "data")).rstrip("/")
        registry = str(data_file(NAME))
        cs = curve_settings(s)
        families = tuple(dict.fromkeys(sh.family for sh in self.samples(s)))
        return [
            Step("aggregate", curves.aggregate, {"regret": out["regret"], "final": out["final"],
                                                 "slopes": out["slopes"]},
                 shards=True, settings=cs, message=f"{NAME}: aggregating the simulation shards"),
            Step("traces", curves.write_traces, {"csv": out["traces"]}, inputs={"final": out["final"]},
                 samples=families or None, settings={**cs, "traces": s["traces"]},
                 message=f"{NAME}: the traced runs of D-TS and D-TS+"),
            Step("figure1", curves.figure1, {"pdf": out["figure1_pdf"], "png": out["figure1_png"]},
                 inputs={"regret": out["regret"]}, settings=cs),
            Step("figure2", figure2.figure2, {k: out[f"figure2_{k}"] for k in ("csv", "md", "pdf", "png")},
                 inputs={"final": out["final"], "registry": registry}, settings=cs),
            Step("checks", checks.write_checks, {"csv": out["checks"]},
                 inputs={"regret": out["regret"], "final": out["final"], "slopes": out["slopes"],
                         "traces": out["traces"], "registry": registry,
                         "data": sorted({f for p in s["panels"].values() for f in dataset_inputs(p["dataset"], data)})},
                 settings=s, message=f"{NAME}: evaluating the published-number registry"),
        ]

    def items(self, s: Mapping, out: Mapping[str, str]) -> list[Item]:
        """The paper's figures as rebuilt here: what the paper shows, what runs, the readings."""
        panels = "; ".join(f"({chr(97 + k)}) {PANELS[p]}: {s['panels'][p]['dataset']}, T = {int(s['panels'][p]['horizon'])}, "
                           f"{', '.join(e.label for e in panel_curves(s, p))}"
                           for k, p in enumerate(PANELS))
        runs = f"{int(s['runs'])} runs per curve (fidelity {s['fidelity']}; the paper averages 500, L898)"
        t2 = figure2_time(s)
        return [
            Item("figure1", "figure", "Figure 1 (regret in the MSLR dataset, L907-L913)",
                 "The paper plots the mean cumulative Copeland regret of Eq. (1) against log t for D-TS, D-TS+ and nine "
                 "baselines (L892-L896) on two 5-armed MSLR submatrices, with and without a Condorcet winner. Here: "
                 f"{panels}; {runs}; arms relabelled at random per run (L898-L899); alpha = 0.51 for the RUCB/RLCB "
                 "methods, BTM gamma = 1.3 (L893-L895); BTM and SAVAGE once per point of a 12-point horizon grid "
                 "(L896-L897). Readings W1-W7 of data/published/wu2016.yaml: full-precision submatrices (the 3-decimal "
                 "prints are a labelled variant), Condorcet SAVAGE on (a) and Copeland SAVAGE on (b), no common random "
                 "numbers. Semilog axes and the paper's top y tick as the frame (paper fidelity); curves above it are "
                 "marked where they leave and listed with their value at T; bands are ± 1 s.e.",
                 (out["figure1_png"], out["figure1_pdf"])),
            Item("figure2", "figure", "Figure 2 (STD of regret, L915-L918)",
                 f"The paper's grouped bars give the STD of the regret at T = 10^6 of ECW-RMED, D-TS and D-TS+ on both "
                 f"panels, normalised by ECW-RMED's mean regret (caption). Here at t = {t2} (the end of (a), a "
                 "checkpoint of (b)): sample STD over the runs divided by ECW-RMED's mean (W8, the checks), and divided "
                 "by the algorithm's own mean (the other reading of L934-L935, shown only, the right panel); the published "
                 "bars are drawn beside the reproduced ones in both panels.", (out["figure2_png"], out["figure2_pdf"], out["figure2_md"],
                                                  out["figure2_csv"])),
            Item("curves", "table", "Regret curves behind Figures 1-2",
                 "Mean regret and s.e. per panel, curve and checkpoint (regret.csv); per-run regret at each panel's "
                 "horizon and at Figure 2's time (final_regret.csv), from which the orderings are judged (the ratio of "
                 "the means with its 95 % interval); per-run slopes in ln t over [T/10, T] and the regret at T/10 of "
                 f"{', '.join(SLOPE_ALGORITHMS)} (run_slopes.csv).", (out["regret"], out["final"], out["slopes"])),
            Item("traces", "table", "Traced runs of D-TS and D-TS+ (L928-L929, L955-L956)",
                 f"The first {int(s['traces']['runs'])} runs of {', '.join(s['traces']['curves']) or 'no curve'} on "
                 "each panel, replayed on the simulation's own random stream (R(T) equal to the simulated run's): the "
                 "share of steps at which the RUCB bounds removed a candidate from C (lines 4-6 of Algorithm 1; "
                 "'RUCB-based elimination seldom occurs', L955-L956) and, per arm, the steps and the regret with that "
                 "arm as first candidate (D-TS 'randomly explores all Copeland winners', L928-L929).", (out["traces"],)),
            Item("checks", "checks", "Published numbers and claims (data/published/wu2016.yaml)",
                 "Every check of the registry at the active fidelity: the matrices' winners and Assumptions 1-2, the "
                 "orderings and ratios of Section 5 on both panels, slopes and O(log T) flatness, Figure 1's label "
                 "groups, Figure 2's bars and STD orderings. Published claims are asserted at paper fidelity only; a "
                 "statistic the fidelity does not produce is inconclusive with the reason.", (out["checks"],)),
        ]


EXPERIMENT = WuLiu2016()
