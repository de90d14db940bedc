"""What each figure's error bars are, where its variability comes from, and what it cost.

One declaration per figure of every experiment (:data:`FIGURES`, keyed by ``(experiment, item
id)``), written from the code that draws it: the bars' method (± 1 standard error of the mean,
a 95 % interval and which, or none), the source of variability (independent runs and how they
are seeded, sampled instances) and the compute, in CPU-hours measured at paper fidelity as the
sum of the provenance sidecars of the shards the figure reads (the README's table of
``make figures ARCHIVE=off``; ``duelbench cost <paper>`` measures it on another machine).
:func:`statement` renders one as a sentence for the item's caption, with the run counts of the
active configuration; ``REPORT.md`` (:mod:`.markdown`) and the Snakemake report print it under
each figure. ``tests/test_report_uncertainty.py`` checks that every figure has one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Uncertainty:
    """The error bars of one figure: ``bars`` (their method), ``variability`` (its source),
    ``compute`` (CPU time at paper fidelity). ``bars`` and ``variability`` may hold ``{name}``
    fields filled from the experiment's effective settings by :data:`SETTINGS`."""

    bars: str
    variability: str
    compute: str


def _get(settings: Mapping, *path, default="?"):
    node = settings
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return default
        node = node[key]
    return node


#: experiment -> the format fields of its statements, from its effective settings (run counts
#: differ between fidelities)
SETTINGS: dict[str, Callable[[Mapping], dict]] = {
    "komiyama2016": lambda s: {"runs": _get(s, "runs"), "seed": _get(s, "seed"),
                               "robustness_runs": _get(s, "robustness", "runs")},
    "zoghi2015": lambda s: {"seed": _get(s, "seed"), **{f"runs_{k}": _get(s, k, "runs")
                                                       for k in ("figure1", "figure2", "figure3", "sensitivity")},
                            "samples": _get(s, "appendix_c", "samples_per_k"),
                            "sample_seed": _get(s, "appendix_c", "seed")},
    "wu2016": lambda s: {"runs": _get(s, "runs"), "seed": _get(s, "seed")},
    "agarwal2022": lambda s: {"runs": _get(s, "runs"), "figure_runs": _get(s, "figure_runs"),
                              "seed": _get(s, "seed")},
    "chen2020": lambda s: {"seed": _get(s, "seed"), "instance_seed": _get(s, "instance_seed"),
                           "pac_runs": _get(s, "pac", "runs"), "car_runs": _get(s, "car_cond", "runs"),
                           "lb_runs": _get(s, "lower_bounds", "borda", "runs"),
                           "parallel_runs": _get(s, "parallel", "runs")},
    "demo": lambda s: {"runs": _get(s, "runs"), "seed": _get(s, "seed")},
    "benchmark": lambda s: {"resamples": _get(s, "bootstrap", "resamples"), "boot_seed": _get(s, "bootstrap", "seed")},
}

#: how a simulation run is seeded (README, Python API: seeds)
_RUN_SEEDS = ("independent runs: run r of a curve draws from SeedSequence({seed}, spawn_key = (hashes of dataset, "
              "algorithm and parameters, r)), and its arm relabelling depends only on ({seed}, dataset, r)")
_SE_BAND = "shaded bands: ± 1 standard error of the mean (sample s.d. / sqrt(n)) over the {n} runs of each curve, per checkpoint"
_HORIZON_POINTS = ("; an algorithm that needs T in advance (SAVAGE, BTM) runs once per point of a horizon grid, "
                   "so each of its points is an independent set of runs")
_SOURCE = "measured at paper fidelity as the sum of the shards' provenance sidecars (README, `make figures ARCHIVE=off`)"
_BENCHMARK_COMPUTE = ("the papers' own cells (their shards) and about 15 CPU-h for the cells the benchmark adds, "
                      "estimated at paper fidelity before they ran by the cost pass (data/benchmark/cost_pass.md); "
                      "`duelbench cost benchmark` measures it from the shards' sidecars")
_CHEN = ("part of the paper's 1.8 CPU-h of sample shards (the X4, X5b and X7 studies together 0.82), " + _SOURCE)

FIGURES: dict[tuple[str, str], Uncertainty] = {
    ("komiyama2016", "figure1"): Uncertainty(
        _SE_BAND.format(n="{runs}") + _HORIZON_POINTS,
        _RUN_SEEDS + "; the sampled MSLR panels are fixed draws from declared seeds (R2)",
        "2.8 CPU-h for the 880 simulation shards of Figures 1-2 and the robustness draws together, " + _SOURCE),
    ("komiyama2016", "figure2"): Uncertainty(
        _SE_BAND.format(n="{runs}") + _HORIZON_POINTS, _RUN_SEEDS,
        "within the 2.8 CPU-h of Figure 1 (the same shards' set), " + _SOURCE),
    ("komiyama2016", "robustness_figure"): Uncertainty(
        "markers: mean final regret ± 1 standard error of the mean over the runs of each dataset ({runs} per panel, "
        "{robustness_runs} per further draw)",
        _RUN_SEEDS + "; the further draws are independent random submatrices from declared seeds",
        "within the 2.8 CPU-h of Figures 1-2, " + _SOURCE),
    ("zoghi2015", "figure1"): Uncertainty(
        _SE_BAND.format(n="{runs_figure1}") + "; Copeland SAVAGE's markers carry error bars of the same ± 1 s.e., "
        "each point an independent set of runs at its own horizon", _RUN_SEEDS,
        "1.5 CPU-h for the 125 simulation shards of Figures 1-3 and the gap sensitivity together, " + _SOURCE),
    ("zoghi2015", "figure2"): Uncertainty(
        _SE_BAND.format(n="{runs_figure2}"), _RUN_SEEDS + "; one fixed instance from the declared generator (Z2)",
        "within the 1.5 CPU-h of Figures 1-3, " + _SOURCE),
    ("zoghi2015", "figure3"): Uncertainty(
        _SE_BAND.format(n="{runs_figure3}"), _RUN_SEEDS, "within the 1.5 CPU-h of Figures 1-3, " + _SOURCE),
    ("zoghi2015", "sensitivity"): Uncertainty(
        _SE_BAND.format(n="{runs_sensitivity}"), _RUN_SEEDS + "; one fixed instance per gap from the declared generator",
        "within the 1.5 CPU-h of Figures 1-3, " + _SOURCE),
    ("zoghi2015", "figure4"): Uncertainty(
        "shaded bands: ± 1 binomial standard error, sqrt(P_K (1 - P_K) / n), over the n = {samples} sampled subsets "
        "of each K",
        "sampled rankers: uniform K-subsets of the 136 MSLR rankers, sample i of (click model, K) drawn from its own "
        "stream of seed {sample_seed} (Z5); no simulation",
        "1.1 CPU-h for the 204 sample shards of Appendix C (Figures 4-6 and Table 1 together), " + _SOURCE),
    ("zoghi2015", "figure5"): Uncertainty(
        "none: each circle's area is the share of the samples of size K with that value (the distribution itself)",
        "the sampled K-subsets of Figure 4 (informational click model)", "within the 1.1 CPU-h of Figure 4, " + _SOURCE),
    ("zoghi2015", "figure6"): Uncertainty(
        "none: the mean and the median of the ratio over the samples of each K are drawn as lines (the s.e. of the "
        "mean is in delta_ratio.csv)",
        "the sampled K-subsets of Figure 4 (informational click model)", "within the 1.1 CPU-h of Figure 4, " + _SOURCE),
    ("wu2016", "figure1"): Uncertainty(
        _SE_BAND.format(n="{runs}") + _HORIZON_POINTS, _RUN_SEEDS,
        "panel (a) 0.63 and panel (b) 6.35 CPU-h of simulation shards, " + _SOURCE),
    ("wu2016", "figure2"): Uncertainty(
        "the reproduced bars of STD / ECW-RMED's mean carry the 95 % bootstrap percentile interval over the {runs} "
        "runs (20,000 replicates, seeded by the declared seed and the statistic's name; the interval its check "
        "judges); the bars of STD / own mean and the published bars have none",
        "the runs of Figure 1 at t = 10^6: " + _RUN_SEEDS,
        "no further compute: the runs of Figure 1 read at t = 10^6"),
    ("agarwal2022", "figure1"): Uncertainty(
        "shaded bands: ± 1 standard error of the mean over the figure's runs 0-{last_figure_run} of each curve, per "
        "checkpoint (the checks use all {runs} runs)",
        _RUN_SEEDS + "; SYN-BTL and SYN-CD are drawn afresh for every run, the same instance for every algorithm (A1)",
        "0.07 CPU-h for the 288 simulation shards of every item, plus 0.03 CPU-h of batch-log samples, " + _SOURCE),
    ("agarwal2022", "figure2"): Uncertainty(
        "shaded bands: ± 1 standard error of the mean over runs 0-{last_figure_run} of each curve, per checkpoint",
        _RUN_SEEDS + "; SYN instances drawn afresh per run (A1)", "within the 0.07 CPU-h of Figure 1, " + _SOURCE),
    ("agarwal2022", "tradeoff"): Uncertainty(
        "bars of ± 1.96 standard errors of the mean final regret R(T) over the {runs} runs of each point "
        "(a normal 95 % interval)",
        _RUN_SEEDS + "; SYN instances drawn afresh per run (A1)", "within the 0.07 CPU-h of Figure 1, " + _SOURCE),
    ("chen2020", "toy"): Uncertainty(
        "none: the toy instance's graphs and matchings are drawn exactly, with no run", "none (no randomness)",
        "seconds (no sample shard)"),
    ("chen2020", "pac"): Uncertainty(
        "(a) the miss rate with its exact Clopper-Pearson 95 % interval over the runs of each cell ({pac_runs} per "
        "cell); (b) mean samples ± 1 standard error of the mean over the same runs",
        "independent runs: run i of a cell draws from SeedSequence({seed}, spawn_key = (cell key, i)) (C2); the "
        "instances are fixed draws of seed {instance_seed} (C1)", _CHEN),
    ("chen2020", "hardness"): Uncertainty(
        "mean samples ± 1 standard error of the mean over the runs of each cell; capped runs are drawn apart as "
        "lower bounds (censored), without bars",
        "independent runs seeded per cell and run index ({seed}, C2) and, for the exact part, several instance draws "
        "per hardness of seed {instance_seed} (C1)", _CHEN),
    ("chen2020", "epochs"): Uncertainty(
        "none: every run is a point, the mean a horizontal tick", "independent runs seeded per cell and run index "
        "({seed}, C2)", _CHEN),
    ("chen2020", "lower_bounds"): Uncertainty(
        "bars of ± 1.96 standard errors of the mean sample count, as a ratio to the lower bound (a normal 95 % "
        "interval, cut at zero), over the {lb_runs} runs of each cell",
        "independent runs seeded per cell and run index ({seed}, C2)",
        "part of the X4 study's share of the 0.82 CPU-h of X4, X5b and X7, " + _SOURCE),
    ("chen2020", "oracles"): Uncertainty(
        "none: the mean and the largest error over the random cases of each size are drawn as separate markers",
        "random cases (instances of the offline problem) drawn per size from seed {seed}", _CHEN),
    ("chen2020", "lemma9"): Uncertainty(
        "none: one line per random case, beside the bound", "random cases drawn per cell from seed {seed}",
        "part of the X5b study's share of the 0.82 CPU-h of X4, X5b and X7, " + _SOURCE),
    ("chen2020", "car_cond"): Uncertainty(
        "(a) mean samples ± 1 standard error of the mean over the runs of each cell ({car_runs} per cell); (b) the "
        "error rate with its exact Clopper-Pearson 95 % interval",
        "independent runs seeded per cell and run index ({seed}, C2); fixed instances of seed {instance_seed} (C1)",
        _CHEN),
    ("chen2020", "parallel"): Uncertainty(
        "none: the means of the fresh runs ({parallel_runs} per cell) and of the calibration runs, with the fitted "
        "slope", "independent runs seeded per cell and run index ({seed}, C2); the calibration runs are separate run "
        "indices", "part of the X7 study's share of the 0.82 CPU-h of X4, X5b and X7, " + _SOURCE),
    ("chen2020", "runtime"): Uncertainty(
        "none: a timing of the machine that built it (host dependent, never checked)",
        "the host: time per round of a fixed number of rounds", "seconds of wall time (a timing, not a shard)"),
    ("demo", "regret"): Uncertainty(
        _SE_BAND.format(n="{runs}"), _RUN_SEEDS, "0.3 CPU-h for its 80 simulation shards, " + _SOURCE),
    ("benchmark", "heatmap"): Uncertainty(
        "none drawn: a cell's 95 % interval is in cells.csv; a red frame marks a cell whose ratio to the best is "
        "not separated from 1 (Holm-adjusted over the instance's pairs, family-wise 5 %)",
        "each paper's runs under its protocol (" + _RUN_SEEDS.format(seed="the paper's seed") + ")",
        _BENCHMARK_COMPUTE),
    ("benchmark", "ranking"): Uncertainty(
        "95 % percentile interval of the mean rank over {resamples} bootstrap replicates of the runs (seed "
        "{boot_seed}, one stream per instance)",
        "each paper's runs under its protocol (" + _RUN_SEEDS.format(seed="the paper's seed") + ")",
        _BENCHMARK_COMPUTE),
}


def figure_items(items) -> list:
    """The items that show a figure (a PNG output)."""
    return [i for i in items if any(str(p).endswith(".png") for p in i.outputs)]


def statement(experiment: str, item_id: str, settings: Mapping | None = None) -> str:
    """One paragraph for the item's caption: its error bars, their source of variability and
    the compute; empty when the item has no declaration (it is not a figure)."""
    u = FIGURES.get((experiment, item_id))
    if u is None:
        return ""
    fields = SETTINGS.get(experiment, lambda s: {})(settings or {})
    if "figure_runs" in fields:
        fr = fields["figure_runs"]
        fields["last_figure_run"] = fr - 1 if isinstance(fr, int) else "?"
    fill = lambda text: text.format_map(_Missing(fields))  # noqa: E731
    return (f"Error bars: {fill(u.bars)}. Source of variability: {fill(u.variability)}. "
            f"Compute: {u.compute}.")


def with_statement(plan, item):
    """``item`` with :func:`statement` appended to its caption when it shows a figure (the
    Snakemake report's caption; ``plan``: the experiment's plan, for its name and settings)."""
    import dataclasses

    text = statement(plan.name, item.id, plan.settings) if figure_items([item]) else ""
    return dataclasses.replace(item, caption=f"{item.caption} {text}") if text else item


class _Missing(dict):
    def __missing__(self, key):
        return "?"
