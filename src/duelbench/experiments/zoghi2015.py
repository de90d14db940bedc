"""Zoghi, Karnin, Whiteson & de Rijke, "Copeland Dueling Bandits" (NIPS 2015; arXiv full version).

Paper text ``shared/papers/001_46dfb6e9ef9a8784.txt`` (``Lnnn`` = its line numbers). Readings of
its ambiguities are Z1-Z7 of ``data/published/zoghi2015.yaml`` (declared before any run); the
settings are section ``zoghi2015`` of ``config/config.yaml`` (schema
``workflow/schemas/zoghi2015.schema.yaml``).

Reproduced
----------
* Regret figures (:mod:`.zoghi2015_regret`): Figure 1 (5-armed MSLR problem without a Condorcet
  winner; CCB, SCB, Copeland SAVAGE, RUCB), Figure 2 (500-armed synthetic problem; CCB, SCB,
  RUCB), Figure 3 (Condorcet example; CCB, RUCB) and a labelled gap-sensitivity variant of
  Figure 2. Regret is Definition 1 (kind ``copeland_zoghi``).
* Appendix C (:mod:`.zoghi2015_appendix_c`): Figure 4 (probability of a Condorcet winner in
  random K-subsets, three click models), Table 1 (overlap of winner notions), Figure 5 (C and
  L_C), Figure 6 (Delta^2 / Delta_min^2).
* ``checks.csv``: every check of the registry, evaluated at the active fidelity.

Outputs (:func:`outputs`; under ``figures_dir(config, "zoghi2015")``, each with a ``.json``
provenance sidecar): ``condorcet_probability.csv``, ``figure4.{pdf,png}``, ``table1_overlap.csv``,
``table1_overlap_se.csv``, ``table1_overlap_long.csv``, ``table1_overlap.md``,
``c_lc_distribution.csv``, ``figure5.{pdf,png}``, ``delta_ratio.csv``, ``figure6.{pdf,png}``,
``appendix_c_cost.csv``, ``regret.csv``, ``figure1/2/3.{pdf,png}``, ``sensitivity.{pdf,png}``,
``throughput.csv``, ``checks.csv``.

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
    rounded to an integer; the unrounded value is in the evidence.
``fig4:endpoints``
    ``P_1 = 1`` and ``P_136 = 0`` (``P_K``: fraction of the samples of size K with a Condorcet
    winner). Needs K = 1 and K = 136 to be sampled.
``fig4:decreases_rapidly``
    Spearman's rank correlation of (K, P_K) over K = 1..136 is below -0.95, and ``P_K < 0.5``
    for every K >= 100. Needs every K.
``table1:<a>:<b>`` (``a``, ``b`` in copeland, von_neumann, borda, random_walk)
    Percentage of samples whose winner sets of notions a and b intersect, pooled with equal
    weight over K = 1..136 (Z6): ``100 x mean_K p_K``; s.e. ``100 x sqrt(sum_K p_K (1 - p_K) /
    n_K) / 136``. Main reading: von Neumann = union support (tolerance ``support_tol``), random
    walk = chain ``random_walk_main`` (RW-C). Needs every K.
``table1:copeland_in_vn_support``
    Likewise, the percentage of samples in which every Copeland winner is in the von Neumann
    support.
``table1:ordering_as_stated``
    The Copeland/von Neumann and Borda/random-walk overlaps both exceed each of the four cross
    overlaps (Copeland/Borda, Copeland/random walk, von Neumann/Borda, von Neumann/random walk),
    on the point estimates.
``fig5:c_and_lc_small``
    For every K in 20..136, the 99th percentile of C and that of L_C over the samples of size K
    are at most K/5. Percentile: the smallest sampled value v such that at least 99% of the
    samples are <= v (inverted empirical CDF). Needs every K >= 20.
``fig6:mean_over_k``
    The mean over K = 2..136 of the per-K mean of ``Delta^2 / Delta_min^2`` (samples with C = K
    excluded, Z7). Needs every K.
``fig6:mean_at_135``
    The mean ratio at K = 135.
``order:<dataset>:<A>:<B>``
    Per-run cumulative regret (Definition 1) at the horizon T of the item that shows
    ``dataset``, of algorithms A and B: the samples ``a`` and ``b`` of the one-sided Welch test;
    the value is mean A / mean B.
``growth:mslr5_noncondorcet:rucb``
    ``[R(T) - R(T/2)] / R(T/2)`` for RUCB's mean regret curve R on Figure 1's problem (1 for
    linear growth, about 0.04 for logarithmic growth at T = 2x10^7).
``savage:mslr5_noncondorcet:r2e7_lt_r1e7``
    Mean regret of the SAVAGE job at horizon 2x10^7 is below that of the independent job at
    10^7. Only at horizon T = 2x10^7 (paper fidelity); otherwise inconclusive, with the same
    comparison of T and T/2 in the evidence.
``transition:zoghi_copeland500:<alg>``
    Mean per-step regret over the last decade [T/10, T] is below 1% of the mean per-step regret
    over the first decade after 10^3, [a, b] with a and b the checkpoints nearest (in log
    scale) to 10^3 and 10^4, both from the mean regret curve. Needs T >= 10^5.
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

import json
import math
import os
import sys
from collections.abc import Mapping, Sequence

import numpy as np

from . import (
    ConfigError,
    ShardSpec,
    experiment_settings,
    figures_dir,
    group_shards,
    log_to,
    results_root,
    shard_job_main,
)
from . import zoghi2015_appendix_c as ac
from . import zoghi2015_regret as rg

NAME = "zoghi2015"
#: Click models whose every per-sample quantity is computed, unless configured otherwise.
DEFAULT_WINNER_STATISTICS = ("mslr_informational",)
#: The click model of Table 1 and Figures 5-6.
MAIN_CLICK_MODEL = "mslr_informational"
#: Matrices of Figures 1-3 (theory check ``delta_star_ge_delta``).
FIGURE_MATRICES = ("mslr5_noncondorcet", "zoghi_copeland500", "mslr5_condorcet")
#: The horizon-mode baseline of Figure 1 (statistic ``savage:*``).
SAVAGE = "copeland_savage"


# --------------------------------------------------------------------------------------------
# settings and outputs
# --------------------------------------------------------------------------------------------
def settings(config: Mapping, fidelity: str | None = None) -> dict:
    """The effective section (fidelity overrides applied, defaults filled in) + ``fidelity``."""
    s = json.loads(json.dumps(experiment_settings(config, NAME, fidelity)))
    s["fidelity"] = config.get("fidelity", "paper") if fidelity is None else fidelity
    s.setdefault("kind", "copeland_zoghi")
    a = s.setdefault("appendix_c", {})
    a.setdefault("winner_statistics", list(DEFAULT_WINNER_STATISTICS))
    a.setdefault("random_walk_main", "C")
    a.setdefault("von_neumann_support", "union")
    a.setdefault("support_tol", 1e-9)
    a.setdefault("pooling", "equal_weight_over_k")
    a.setdefault("k_values", "all")
    if s["kind"] != "copeland_zoghi":
        raise ConfigError(f"zoghi2015.kind: only 'copeland_zoghi' (Definition 1, reading Z3) is supported, "
                          f"got {s['kind']!r}")
    if a["pooling"] != "equal_weight_over_k":
        raise ConfigError(f"zoghi2015.appendix_c.pooling: only 'equal_weight_over_k' (Z6), got {a['pooling']!r}")
    missing = [m for m in a["winner_statistics"] if m not in a["click_models"]]
    if missing:
        raise ConfigError(f"zoghi2015.appendix_c.winner_statistics: {missing} not in click_models")
    try:
        a["k_values_resolved"] = list(ac.resolve_k_values(a["k_values"]))
    except ac.AppendixCError as exc:
        raise ConfigError(f"zoghi2015.{exc}") from None
    return s


def check_settings(config: Mapping, fidelity: str | None = None) -> dict:
    """:func:`settings` plus the checks a schema cannot make: known algorithms with valid
    parameters and known datasets in every regret item. Raises :class:`ConfigError`."""
    from . import check_datasets

    s = settings(config, fidelity)
    for item in rg.REGRET_ITEMS:
        it = rg.item_settings(s, item)
        check_datasets(it["datasets"], where=f"zoghi2015.{item}.datasets")
    check_datasets(s["appendix_c"]["click_models"], where="zoghi2015.appendix_c.click_models")
    return s


def outputs(config: Mapping, fidelity: str | None = None) -> dict[str, str]:
    """Final outputs by key (sidecars are ``<path>.json``)."""
    d = figures_dir(config, NAME, fidelity)
    out = {
        "condorcet_csv": "condorcet_probability.csv", "figure4_pdf": "figure4.pdf", "figure4_png": "figure4.png",
        "table1_csv": "table1_overlap.csv", "table1_se_csv": "table1_overlap_se.csv",
        "table1_long_csv": "table1_overlap_long.csv", "table1_md": "table1_overlap.md",
        "c_lc_csv": "c_lc_distribution.csv", "figure5_pdf": "figure5.pdf", "figure5_png": "figure5.png",
        "delta_ratio_csv": "delta_ratio.csv", "figure6_pdf": "figure6.pdf", "figure6_png": "figure6.png",
        "appendix_c_cost_csv": "appendix_c_cost.csv",
        "regret_csv": "regret.csv", "throughput_csv": "throughput.csv", "checks_csv": "checks.csv",
    }
    for item in rg.REGRET_ITEMS:
        out[f"{item}_pdf"] = f"{item}.pdf"
        out[f"{item}_png"] = f"{item}.png"
    return {k: f"{d}/{v}" for k, v in out.items()}


APPENDIX_C_TABLES = ("condorcet_csv", "table1_csv", "table1_se_csv", "table1_long_csv", "table1_md", "c_lc_csv",
                     "delta_ratio_csv", "appendix_c_cost_csv")
APPENDIX_C_FIGURES = ("figure4_pdf", "figure4_png", "figure5_pdf", "figure5_png", "figure6_pdf", "figure6_png")


def regret_figure_keys(item: str) -> tuple[str, str]:
    return f"{item}_pdf", f"{item}_png"


def registry_path() -> str:
    from duelbench.data.paths import project_root

    return os.fspath(project_root() / "data" / "published" / f"{NAME}.yaml")


# --------------------------------------------------------------------------------------------
# shards
# --------------------------------------------------------------------------------------------
def regret_shards(config: Mapping, fidelity: str | None = None) -> dict[str, list[ShardSpec]]:
    """Regret item -> its simulation shards."""
    s = settings(config, fidelity)
    return rg.shard_specs(s, fidelity=s["fidelity"], root=results_root(config))


def shard_specs(config: Mapping, fidelity: str | None = None) -> list[ShardSpec]:
    """Every simulation shard of the regret items (each path once)."""
    seen, out = set(), []
    for specs in regret_shards(config, fidelity).values():
        for sp in specs:
            if sp.path not in seen:
                seen.add(sp.path)
                out.append(sp)
    return out


def appendix_c_shards(config: Mapping, fidelity: str | None = None) -> list[ac.AppendixCShard]:
    """Every Appendix-C shard (all click models)."""
    s = settings(config, fidelity)
    a = s["appendix_c"]
    return ac.plan_shards(fidelity=s["fidelity"], click_models=a["click_models"], seed=int(a["seed"]),
                          k_values=a["k_values"], samples_per_k=int(a["samples_per_k"]),
                          samples_per_shard=int(a["samples_per_shard"]), support_tol=float(a["support_tol"]),
                          full_models=a["winner_statistics"], root=results_root(config))


def appendix_c_code_hash() -> str:
    """Hash of the import closure of the Appendix-C sampler (a rule param: edits rerun the shards)."""
    from duelbench.provenance.codehash import module_closure_hash

    return module_closure_hash(ac.__name__)


def experiment_code_hash() -> str:
    """Hash of this module's import closure: the code that turns shards into tables, figures and
    checks (a rule param, so editing it rebuilds them; Snakemake does not see edits to imported
    modules)."""
    from duelbench.provenance.codehash import PROVENANCE, closure_hash

    return closure_hash(__file__, exclude=PROVENANCE)  # __file__: also right when run as __main__


def run_appendix_c_shard(out_path: str, job_params: str, log: str | None = None) -> None:
    """Workflow job: compute one Appendix-C shard (``job_params`` = ``AppendixCShard.job_params()``)."""
    shard = ac.AppendixCShard.from_job_params(job_params, os.path.normpath(out_path))
    with log_to(log):
        print(f"appendix C shard {out_path}: {job_params}", flush=True)
        ac.run_shard(shard, log=lambda msg: print(msg, flush=True))


# --------------------------------------------------------------------------------------------
# Appendix C: tables and figures
# --------------------------------------------------------------------------------------------
def _expect(s: Mapping) -> dict:
    a = s["appendix_c"]
    return {m: (a["k_values_resolved"], int(a["samples_per_k"])) for m in a["click_models"]}


def published_values(path: str | None = None) -> dict[str, float]:
    """statistic -> published number, from the registry (only compared against, never used)."""
    from duelbench.report.checks import load_registry

    reg = load_registry(path or registry_path())
    return {c["statistic"]: c["published"] for c in reg["checks"] if c.get("published") is not None}


def _fmt_pct(x: float, se: float | None = None) -> str:
    if se is None or not np.isfinite(se) or se == 0:
        return f"{x:.2f}"
    return f"{x:.2f} ± {se:.2f}"


def table1_markdown(long, s: Mapping, published: Mapping[str, float], n_per_k: int, ks: Sequence[int]) -> str:
    """``table1_overlap.md``: the main table with the published value beside each cell, then the
    labelled variants."""
    names = {"copeland": "Copeland", "von_neumann": "von Neumann", "borda": "Borda", "random_walk": "Random Walk"}
    a = s["appendix_c"]
    full_k = list(ks) == list(range(1, ac.N_ARMS + 1))
    krange = "K = 1..136" if full_k else f"K in {{{', '.join(map(str, ks))}}} only (not the declared 1..136)"
    lines = [
        "# Table 1 (Zoghi et al. 2015, Appendix C.2): overlap of winner notions",
        "",
        f"Percentage of sampled submatrices of the informational MSLR matrix whose winner sets intersect, "
        f"pooled with equal weight over {krange}, {n_per_k} samples per K (fidelity `{s['fidelity']}`). "
        "Each cell: reproduced ± 1 s.e. [published]. Cells marked *calibrated* involve the random-walk "
        f"winner (chain RW-{a['random_walk_main']}), whose chain was chosen with knowledge of this table "
        "(reading Z6): they are reported, not claimed as replicated.",
        "",
    ]

    def pub(r, c):
        for key in (f"table1:{r}:{c}", f"table1:{c}:{r}"):
            if key in published:
                return published[key]
        return None

    def block(variant, with_published):
        sub = long[long["variant"] == variant]
        label = sub["label"].iloc[0]
        out = [f"## {label[0].upper() + label[1:]}", "",
               "| Overlap | " + " | ".join(names[c] for c in ac.TABLE1_NOTIONS) + " |",
               "|---|" + "---|" * len(ac.TABLE1_NOTIONS)]
        for r in ac.TABLE1_NOTIONS:
            cells = []
            for c in ac.TABLE1_NOTIONS:
                row = sub[(sub["row"] == r) & (sub["column"] == c)].iloc[0]
                txt = _fmt_pct(row["percent"], row["se"])
                p = pub(r, c) if (with_published and r != c) else None
                if p is not None:
                    txt += f" [{p}]"
                if bool(row["calibrated"]):
                    txt += " *calibrated*"
                cells.append(txt)
            out.append(f"| {names[r]} | " + " | ".join(cells) + " |")
        row = sub[sub["row"] == "copeland_in_vn_support"].iloc[0]
        p = published.get("table1:copeland_in_vn_support") if with_published else None
        out += ["", f"All Copeland winners in the von Neumann support: {_fmt_pct(row['percent'], row['se'])}%"
                + (f" [published {p}%]" if p is not None else ""), ""]
        return out

    lines += block("main", True)
    lines += ["## Published (Table 1, L437-L440, from data/published/zoghi2015.yaml)", "",
              "| Overlap | " + " | ".join(names[c] for c in ac.TABLE1_NOTIONS) + " |",
              "|---|" + "---|" * len(ac.TABLE1_NOTIONS)]
    for r in ac.TABLE1_NOTIONS:
        cells = ["100" if r == c else (str(pub(r, c)) if pub(r, c) is not None else "") for c in ac.TABLE1_NOTIONS]
        lines.append(f"| {names[r]} | " + " | ".join(cells) + " |")
    p = published.get("table1:copeland_in_vn_support")
    lines += ["", f"All Copeland winners in the von Neumann support: {p}%" if p is not None else "", ""]
    for variant in long["variant"].unique():
        if variant != "main":
            lines += block(variant, False)
    return "\n".join(lines).rstrip() + "\n"


def appendix_c_tables(shard_paths: Sequence[str], out: Mapping[str, str], config: Mapping,
                      fidelity: str | None = None, log: str | None = None) -> None:
    """Figure 4, Table 1, Figure 5, Figure 6 tables (+ per-sample cost) from the shards, with sidecars."""
    from duelbench.provenance.sidecar import Timer, atomic_write_text, write_sidecar

    from .aggregate import write_table

    s = settings(config, fidelity)
    a = s["appendix_c"]
    wanted = {sh.path for sh in appendix_c_shards(config, fidelity)}
    given = {os.path.normpath(p) for p in shard_paths}
    if given != wanted:
        raise ac.AppendixCError(f"expected the {len(wanted)} Appendix-C shards of this configuration, got "
                                f"{len(given)} ({sorted(given ^ wanted)[:3]} ...)")
    paths = sorted(wanted)
    with log_to(log), Timer() as t:
        records = ac.load_records(paths, expect=_expect(s))
        main = records.get(MAIN_CLICK_MODEL)
        if main is None or not main.full:
            raise ac.AppendixCError(f"Table 1 and Figures 5-6 need every per-sample quantity of {MAIN_CLICK_MODEL}: "
                                    "list it in zoghi2015.appendix_c.click_models and winner_statistics")
        cond = ac.condorcet_table(records)
        write_table(cond, out["condorcet_csv"], columns=["K", "p_condorcet", "n_samples", "stderr", "click_model"])
        long = ac.table1_long(main, a["random_walk_main"], a["von_neumann_support"])
        write_table(long, out["table1_long_csv"])
        ac.table1_matrix(long, "main", "percent").to_csv(out["table1_csv"], float_format="%.6g", lineterminator="\n")
        ac.table1_matrix(long, "main", "se").to_csv(out["table1_se_csv"], float_format="%.6g", lineterminator="\n")
        md = table1_markdown(long, s, published_values(), int(a["samples_per_k"]), a["k_values_resolved"])
        atomic_write_text(out["table1_md"], md)
        write_table(ac.c_lc_distribution(records), out["c_lc_csv"])
        write_table(ac.delta_ratio_table(main), out["delta_ratio_csv"])
        write_table(ac.cost_table([p + ".json" for p in paths]), out["appendix_c_cost_csv"])
        print(f"{len(paths)} shards, {sum(r.k.size for r in records.values())} samples")
    for key in APPENDIX_C_TABLES:
        write_sidecar(out[key], inputs=paths, config=s["appendix_c"], seeds={"seed": int(a["seed"])},
                      extra={"experiment": NAME, "output": key,
                             "host_dependent": key == "appendix_c_cost_csv"}, **t.as_kwargs())


_MODEL_STYLE = {"mslr_informational": ("informational", "#0072B2", "-"),
                "mslr_navigational": ("navigational", "#D55E00", "--"),
                "mslr_perfect": ("perfect", "#009E73", ":")}


def appendix_c_figures(out: Mapping[str, str], config: Mapping, fidelity: str | None = None,
                       log: str | None = None) -> None:
    """Figures 4, 5, 6 from the Appendix-C tables (+ sidecars)."""
    import matplotlib.pyplot as plt
    import pandas as pd
    from matplotlib.ticker import MaxNLocator

    from duelbench.provenance.sidecar import Timer, write_sidecar

    from .plotting import save_figure

    s = settings(config, fidelity)
    a = s["appendix_c"]
    n = int(a["samples_per_k"])
    note = f"{n} samples per K, fidelity {s['fidelity']}"
    with log_to(log), Timer() as t:
        # Figure 4
        cond = pd.read_csv(out["condorcet_csv"])
        fig, ax = plt.subplots(figsize=(5.5, 3.6))
        for model in a["click_models"]:
            d = cond[cond["click_model"] == model].sort_values("K")
            label, colour, ls = _MODEL_STYLE.get(model, (model, None, "-"))
            ax.plot(d["K"], d["p_condorcet"], color=colour, ls=ls, lw=1.5, label=f"{label} click model",
                    marker="o" if len(d) < 20 else None, ms=3)
            ax.fill_between(d["K"], d["p_condorcet"] - d["stderr"], d["p_condorcet"] + d["stderr"], color=colour,
                            alpha=0.2, lw=0)
        ax.set_xlabel("number of arms K")
        ax.set_ylabel("P(Condorcet winner exists)")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(True, alpha=0.3)
        ax.legend(frameon=False, fontsize=8)
        ax.set_title(f"Figure 4: Condorcet winner in random K-subsets\n(mean ± 1 s.e.; {note})", fontsize=8)
        fig.tight_layout()
        save_figure(fig, [out["figure4_pdf"], out["figure4_png"]])
        # Figure 5
        dist = pd.read_csv(out["c_lc_csv"])
        dist = dist[dist["click_model"] == MAIN_CLICK_MODEL]
        fig, axes = plt.subplots(2, 1, figsize=(6.0, 6.0), sharex=True)
        for ax, q, label in zip(axes, ("C", "L_C"), ("C (number of Copeland winners)", "L_C (losses of a Copeland winner)")):
            d = dist[dist["quantity"] == q]
            ax.scatter(d["K"], d["value"], s=d["percent"] * 1.2, alpha=0.5, color="#0072B2", edgecolors="none")
            ax.set_ylabel(label, fontsize=8)
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            ax.grid(True, alpha=0.3)
        axes[1].set_xlabel("number of arms K")
        axes[0].set_title(f"Figure 5: C and L_C of the informational samples; circle area ∝ percentage of the "
                          f"samples of size K\n({note})", fontsize=8)
        fig.tight_layout()
        save_figure(fig, [out["figure5_pdf"], out["figure5_png"]])
        # Figure 6
        ratio = pd.read_csv(out["delta_ratio_csv"])
        fig, ax = plt.subplots(figsize=(5.5, 3.6))
        ax.plot(ratio["K"], ratio["mean_ratio"], color="#0072B2", lw=1.5, label="mean",
                marker="o" if len(ratio) < 20 else None, ms=3)
        ax.plot(ratio["K"], ratio["median_ratio"], color="#E69F00", lw=1.0, ls="--", label="median",
                marker="s" if len(ratio) < 20 else None, ms=3)
        full = ratio[ratio["K"] == ac.N_ARMS]
        if len(full):
            ax.axhline(float(full["mean_ratio"].iloc[0]), color="#555555", lw=0.8, ls=":",
                       label=f"full matrix (K = 136): {float(full['mean_ratio'].iloc[0]):.0f}")
        ax.set_yscale("log")
        ax.set_xlabel("number of arms K")
        ax.set_ylabel(r"$\Delta^2 / \Delta_{\min}^2$")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(frameon=False, fontsize=8)
        ax.set_title(f"Figure 6: Delta (Def. 3.6) vs Delta_min (Def. 3.2), informational samples with C < K\n"
                     f"({note})", fontsize=8)
        fig.tight_layout()
        save_figure(fig, [out["figure6_pdf"], out["figure6_png"]])
    for key, src in (("figure4_pdf", "condorcet_csv"), ("figure4_png", "condorcet_csv"), ("figure5_pdf", "c_lc_csv"),
                     ("figure5_png", "c_lc_csv"), ("figure6_pdf", "delta_ratio_csv"),
                     ("figure6_png", "delta_ratio_csv")):
        write_sidecar(out[key], inputs=[out[src]], config=s["appendix_c"], seeds={"seed": int(a["seed"])},
                      extra={"experiment": NAME, "output": key}, **t.as_kwargs())


# --------------------------------------------------------------------------------------------
# regret figures
# --------------------------------------------------------------------------------------------
def _check_regret_inputs(shard_paths: Sequence[str], config: Mapping, fidelity: str | None) -> dict:
    by_item = regret_shards(config, fidelity)
    wanted = {sp.path for specs in by_item.values() for sp in specs}
    given = {os.path.normpath(p) for p in shard_paths}
    if given != wanted:
        raise ValueError(f"expected the {len(wanted)} regret shards of this configuration, got {len(given)} "
                         f"({sorted(given ^ wanted)[:3]} ...)")
    return by_item


def regret_aggregate(shard_paths: Sequence[str], out: Mapping[str, str], config: Mapping,
                     fidelity: str | None = None, log: str | None = None) -> None:
    """``regret.csv`` and ``throughput.csv`` from the simulation shards (+ sidecars)."""
    from duelbench.provenance.sidecar import Timer, write_sidecar

    from .aggregate import write_table

    s = settings(config, fidelity)
    by_item = _check_regret_inputs(shard_paths, config, fidelity)
    paths = sorted({sp.path for specs in by_item.values() for sp in specs})
    with log_to(log), Timer() as t:
        table = rg.regret_table(s, by_item)
        write_table(table, out["regret_csv"])
        thr = rg.throughput_table(s, by_item)
        write_table(thr, out["throughput_csv"])
        print(f"{len(paths)} shards -> {len(table)} curve rows")
        for _, r in thr.iterrows():
            print(f"  {r['item']:12s} {r['dataset']:24s} K={r['K']:4d} {r['algorithm']:16s} T={r['horizon']:>10d} "
                  f"{r['steps_per_second']:.4g} steps/s")
    cfg = {k: s[k] for k in (*rg.REGRET_ITEMS, "seed", "kind", "runs_per_shard", "fidelity")}
    write_sidecar(out["regret_csv"], inputs=paths, config=cfg, seeds={"seed": int(s["seed"])},
                  extra={"experiment": NAME, "kinds": list(rg.KINDS), "rows": int(len(table))}, **t.as_kwargs())
    write_sidecar(out["throughput_csv"], inputs=[p + ".json" for p in paths], config=cfg,
                  seeds={"seed": int(s["seed"])}, hash_inputs=False,
                  extra={"experiment": NAME, "host_dependent": True,
                         "source": "run.info.steps_per_second and run.wall_time_s of the shard sidecars"},
                  **t.as_kwargs())


def regret_figures(regret_csv: str, out: Mapping[str, str], config: Mapping, fidelity: str | None = None,
                   log: str | None = None) -> None:
    """Figures 1-3 and the sensitivity figure from ``regret.csv`` (+ sidecars)."""
    import pandas as pd

    from duelbench.provenance.sidecar import Timer, write_sidecar

    s = settings(config, fidelity)
    with log_to(log), Timer() as t:
        table = pd.read_csv(regret_csv, dtype={"param_hash": str})
        for item in rg.REGRET_ITEMS:
            rg.plot_item(table, s, item, [out[k] for k in regret_figure_keys(item)], fidelity=s["fidelity"])
    for item in rg.REGRET_ITEMS:
        for key in regret_figure_keys(item):
            write_sidecar(out[key], inputs=[regret_csv], config=s[item], seeds={"seed": int(s["seed"])},
                          extra={"experiment": NAME, "item": item, "kind": rg.KINDS[0]}, **t.as_kwargs())


# --------------------------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------------------------
def _m(value=None, *, se=None, a=None, b=None, evidence=""):
    from duelbench.report.checks import Measurement

    return Measurement(value=value, se=se, a=a, b=b, evidence=evidence)


def delta_star_pairs(P) -> np.ndarray:
    """``Delta*_ij`` (Definition 3.5, L171) from bounds.ccb's ``Delta*_i`` and ``Delta_ij``."""
    from duelbench.bounds.ccb import ccb_quantities

    a = P.values if hasattr(P, "values") else np.asarray(P, dtype=float)
    q = ccb_quantities(a)
    di = q.delta_star[:, None]
    return np.where(a >= 0.5, di + q.gaps, np.maximum(di, q.gaps))


def fact_measurements() -> dict:
    """The ``facts:*`` statistics (full MSLR matrices)."""
    from duelbench import load_matrix
    from duelbench.bounds.ccb import ccb_quantities
    from duelbench.problems.winners import condorcet_winner

    out = {}
    inf = load_matrix("mslr_informational")
    cw = condorcet_winner(inf)
    out["facts:informational_has_no_cw"] = _m(cw is None, evidence=f"Condorcet winner: {cw}")
    nav, per = condorcet_winner(load_matrix("mslr_navigational")), condorcet_winner(load_matrix("mslr_perfect"))
    out["facts:navigational_and_perfect_have_cw"] = _m(nav is not None and per is not None,
                                                       evidence=f"navigational: {nav}, perfect: {per}")
    q = ccb_quantities(inf)
    r = ac.delta_ratio(q.delta_def36, q.delta_globalmin)
    out["facts:full_delta_ratio"] = _m(int(round(r)) if np.isfinite(r) else None,
                                       evidence=f"unrounded {r:.4f}; Delta = {q.delta_def36:.6g}, "
                                                f"Delta_min = {q.delta_globalmin:.6g}, C = {q.C}, L_C = {q.L_C}")
    return out


def theory_measurements() -> dict:
    """The ``theory:*`` statistics."""
    from duelbench import load_matrix
    from duelbench.bounds.ccb import ccb_quantities
    from duelbench.problems.winners import condorcet_winner, copeland_scores, copeland_winners

    out = {}
    try:
        P = load_matrix("zoghi_copeland500")
    except Exception as exc:  # the generated instance may be unavailable
        out["theory:synth500_structure"] = _m(evidence=f"zoghi_copeland500 unavailable: {exc}")
    else:
        a = P.values
        sc = copeland_scores(a)
        w = list(copeland_winners(a))
        others = np.delete(sc, w)
        beats_in_w = [int(np.count_nonzero(a[i, w] > 0.5)) for i in w]
        ok = (len(w) == 3 and all(sc[i] == 498 for i in w) and beats_in_w == [1, 1, 1]
              and others.size == 497 and int(others.min()) == 0 and int(others.max()) == 496)
        out["theory:synth500_structure"] = _m(
            bool(ok), evidence=f"winners {w} with scores {[int(sc[i]) for i in w]}, wins among winners {beats_in_w}; "
                               f"others' scores {int(others.min())}..{int(others.max())}, "
                               f"{np.unique(others).size} distinct of {others.size}")
    try:
        q = ccb_quantities(load_matrix("mslr5_noncondorcet"))
        cw = condorcet_winner(load_matrix("mslr5_noncondorcet"))
        out["theory:mslr5_noncondorcet_structure"] = _m(
            q.C == 3 and q.L_C == 1 and cw is None, evidence=f"C = {q.C}, L_C = {q.L_C}, Condorcet winner {cw}")
    except Exception as exc:
        out["theory:mslr5_noncondorcet_structure"] = _m(evidence=f"mslr5_noncondorcet unavailable: {exc}")
    ok, notes = True, []
    for name in FIGURE_MATRICES:
        try:
            P = load_matrix(name)
        except Exception as exc:
            out["theory:delta_star_ge_delta"] = _m(evidence=f"{name} unavailable: {exc}")
            break
        ds = delta_star_pairs(P)
        gaps = np.abs(P.values - 0.5)
        off = ~np.eye(P.K, dtype=bool)
        margin = float((ds - gaps)[off].min())
        ok = ok and margin >= 0
        notes.append(f"{name}: min(Delta*_ij - Delta_ij) = {margin:.3g}")
    else:
        out["theory:delta_star_ge_delta"] = _m(bool(ok), evidence="; ".join(notes))
    return out


def _inverted_cdf_q99(values: np.ndarray) -> float:
    return float(np.percentile(values, 99, method="inverted_cdf"))


def appendix_c_measurements(out: Mapping[str, str], s: Mapping) -> dict:
    """``fig4:*``, ``table1:*``, ``fig5:*``, ``fig6:*`` from the Appendix-C tables."""
    import pandas as pd
    from scipy.stats import spearmanr

    a = s["appendix_c"]
    ks = list(a["k_values_resolved"])
    all_k = list(range(1, ac.N_ARMS + 1))
    complete = ks == all_k
    why = (f"only K in {ks} sampled at fidelity {s['fidelity']}; the statistic needs every K = 1..136"
           if not complete else "")
    m = {}
    cond = pd.read_csv(out["condorcet_csv"])
    inf = cond[cond["click_model"] == MAIN_CLICK_MODEL].set_index("K")
    if 1 in inf.index and ac.N_ARMS in inf.index:
        p1, p136 = float(inf.loc[1, "p_condorcet"]), float(inf.loc[ac.N_ARMS, "p_condorcet"])
        m["fig4:endpoints"] = _m(p1 == 1.0 and p136 == 0.0, evidence=f"P_1 = {p1}, P_136 = {p136}")
    else:
        m["fig4:endpoints"] = _m(evidence=f"K = 1 or K = 136 not sampled (K values {ks})")
    if complete:
        rho = float(spearmanr(inf.index.to_numpy(), inf["p_condorcet"].to_numpy()).statistic)
        high = inf[inf.index >= 100]["p_condorcet"]
        m["fig4:decreases_rapidly"] = _m(rho < -0.95 and bool((high < 0.5).all()),
                                         evidence=f"Spearman {rho:.4f}; max P_K for K >= 100: {float(high.max()):.4f}")
    else:
        m["fig4:decreases_rapidly"] = _m(evidence=why)
    long = pd.read_csv(out["table1_long_csv"])
    main = long[long["variant"] == "main"]

    def cell(r, c):
        x = main[(main["row"] == r) & (main["column"] == c)].iloc[0]
        return float(x["percent"]), float(x["se"])

    pairs = [(r, c) for i, r in enumerate(ac.TABLE1_NOTIONS) for c in ac.TABLE1_NOTIONS[i + 1:]]
    for r, c in pairs:
        if complete:
            v, se = cell(r, c)
            m[f"table1:{r}:{c}"] = _m(v, se=se, evidence=f"{a['samples_per_k']} samples per K")
        else:
            m[f"table1:{r}:{c}"] = _m(evidence=why)
    if complete:
        v, se = cell("copeland_in_vn_support", "von_neumann")
        m["table1:copeland_in_vn_support"] = _m(v, se=se, evidence=f"{a['samples_per_k']} samples per K")
        hi = [cell("copeland", "von_neumann")[0], cell("borda", "random_walk")[0]]
        cross = [cell(*p)[0] for p in (("copeland", "borda"), ("copeland", "random_walk"), ("von_neumann", "borda"),
                                       ("von_neumann", "random_walk"))]
        m["table1:ordering_as_stated"] = _m(min(hi) > max(cross),
                                            evidence=f"Copeland/vN {hi[0]:.2f}, Borda/RW {hi[1]:.2f}; cross "
                                                     f"overlaps max {max(cross):.2f}")
    else:
        m["table1:copeland_in_vn_support"] = _m(evidence=why)
        m["table1:ordering_as_stated"] = _m(evidence=why)
    dist = pd.read_csv(out["c_lc_csv"])
    dist = dist[dist["click_model"] == MAIN_CLICK_MODEL]
    need = list(range(20, ac.N_ARMS + 1))
    if all(k in ks for k in need):
        worst = []
        ok = True
        for q in ("C", "L_C"):
            for K in need:
                d = dist[(dist["quantity"] == q) & (dist["K"] == K)]
                q99 = _inverted_cdf_q99(np.repeat(d["value"].to_numpy(), d["count"].to_numpy()))
                ok = ok and q99 <= K / 5
                worst.append((q99 / K, q, K, q99))
        w = max(worst)
        m["fig5:c_and_lc_small"] = _m(bool(ok), evidence=f"largest 99th percentile / K: {w[0]:.3f} ({w[1]} = {w[3]:g} "
                                                         f"at K = {w[2]})")
    else:
        m["fig5:c_and_lc_small"] = _m(evidence=f"only K in {ks} sampled; the statistic needs every K = 20..136")
    ratio = pd.read_csv(out["delta_ratio_csv"]).set_index("K")
    if complete:
        v = float(ratio.loc[2:ac.N_ARMS, "mean_ratio"].mean())
        m["fig6:mean_over_k"] = _m(v, evidence=f"mean over K = 2..136 of the per-K means; largest per-K mean "
                                               f"{float(ratio['mean_ratio'].max()):.4g}")
    else:
        m["fig6:mean_over_k"] = _m(evidence=why.replace("1..136", "2..136"))
    if 135 in ratio.index and np.isfinite(ratio.loc[135, "mean_ratio"]):
        m["fig6:mean_at_135"] = _m(float(ratio.loc[135, "mean_ratio"]),
                                   evidence=f"median {float(ratio.loc[135, 'median_ratio']):.4g}, "
                                            f"n = {int(ratio.loc[135, 'n_defined'])}")
    else:
        m["fig6:mean_at_135"] = _m(evidence=f"K = 135 not sampled (K values {ks})")
    return m


def _item_of(s: Mapping, dataset: str) -> str | None:
    for item in rg.REGRET_ITEMS:
        if dataset in rg.item_settings(s, item)["datasets"]:
            return item
    return None


def _nearest(t: np.ndarray, x: float) -> int:
    return int(np.argmin(np.abs(np.log(t.astype(float)) - math.log(x))))


def regret_measurements(registry: Mapping, s: Mapping, by_item: Mapping[str, Sequence[ShardSpec]]) -> dict:
    """``order:*``, ``growth:*``, ``savage:*``, ``transition:*`` from the simulation shards."""
    kind = rg.KINDS[0]
    groups = {}
    for item in rg.REGRET_ITEMS:
        for (dataset, alg, _h, horizon), g in group_shards(by_item[item]).items():
            groups[(dataset, alg, horizon)] = g
    m = {}
    for c in registry["checks"]:
        stat = c["statistic"]
        parts = stat.split(":")
        if parts[0] not in ("order", "growth", "savage", "transition"):
            continue
        dataset = parts[1]
        item = _item_of(s, dataset)
        if item is None:
            m[stat] = _m(evidence=f"dataset {dataset} is in no configured regret item")
            continue
        T = rg.item_settings(s, item)["horizon"]
        if parts[0] == "order":
            algs = parts[2:4]
        elif parts[0] == "savage":  # the item's horizon-mode (SAVAGE) algorithm
            algs = [a.name for a in rg.item_settings(s, item)["algorithms"] if a.name == SAVAGE][:1] or [SAVAGE]
        else:
            algs = parts[2:3]
        missing = [x for x in algs if (dataset, x, T) not in groups]
        if missing:
            m[stat] = _m(evidence=f"{', '.join(missing)} not configured for {item} ({dataset})")
            continue
        if parts[0] == "order":
            A, B = (rg.final_values(groups[(dataset, x, T)], kind) for x in algs)
            m[stat] = _m(float(A.mean() / B.mean()) if B.mean() else None, a=A, b=B,
                         evidence=f"Definition-1 regret at T = {T:g}")
        elif parts[0] == "growth":
            t, R = rg.mean_curve(groups[(dataset, algs[0], T)], kind)
            half = np.flatnonzero(t == T // 2)
            if T % 2 or half.size == 0:
                m[stat] = _m(evidence=f"no checkpoint at T/2 = {T / 2:g}")
            else:
                r_half = float(R[half[0]])
                v = (float(R[-1]) - r_half) / r_half if r_half > 0 else math.inf
                m[stat] = _m(v, evidence=f"R(T) = {float(R[-1]):.6g}, R(T/2) = {r_half:.6g}, T = {T:g}")
        elif parts[0] == "savage":
            half = rg.half_horizon(T)
            if (dataset, algs[0], half) not in groups:
                m[stat] = _m(evidence=f"no {algs[0]} job at T/2 = {half:g}")
                continue
            r_T = float(rg.final_values(groups[(dataset, algs[0], T)], kind).mean())
            r_h = float(rg.final_values(groups[(dataset, algs[0], half)], kind).mean())
            ev = f"mean regret at T = {T:g}: {r_T:.6g}; at T/2 = {half:g}: {r_h:.6g}"
            if T == 2 * 10**7:
                m[stat] = _m(r_T < r_h, evidence=ev)
            else:
                m[stat] = _m(evidence=f"needs horizons 2x10^7 and 10^7 (paper fidelity); {ev}")
        else:  # transition
            t, R = rg.mean_curve(groups[(dataset, algs[0], T)], kind)
            if T < 10**5:
                m[stat] = _m(evidence=f"T = {T:g} < 10^5: the last decade overlaps the first decade after 10^3")
                continue
            a_, b_ = _nearest(t, 1e3), _nearest(t, 1e4)
            c_ = int(np.searchsorted(t, T // 10))
            early = (R[b_] - R[a_]) / (t[b_] - t[a_])
            late = (R[-1] - R[c_]) / (t[-1] - t[c_])
            ratio = float(late / early) if early > 0 else math.inf
            m[stat] = _m(ratio < 0.01, evidence=f"per-step regret {late:.4g} over [{t[c_]}, {t[-1]}] vs {early:.4g} "
                                                f"over [{t[a_]}, {t[b_]}]: ratio {ratio:.4g}")
    return m


def checks(out: Mapping[str, str], shard_paths: Sequence[str], config: Mapping, fidelity: str | None = None,
           log: str | None = None) -> list:
    """Every registry check at the active fidelity -> ``checks.csv`` (+ sidecar)."""
    from duelbench.report.checks import evaluate_registry, load_registry, write_checks_csv
    from duelbench.provenance.sidecar import Timer, write_sidecar

    s = settings(config, fidelity)
    by_item = _check_regret_inputs(shard_paths, config, fidelity)
    reg_path = registry_path()
    with log_to(log), Timer() as t:
        registry = load_registry(reg_path)
        meas = {}
        meas.update(fact_measurements())
        meas.update(theory_measurements())
        meas.update(appendix_c_measurements(out, s))
        meas.update(regret_measurements(registry, s, by_item))
        results = evaluate_registry(registry, meas, s["fidelity"])
        write_checks_csv(results, out["checks_csv"])
        for r in results:
            print(f"{r.outcome:12s} {'asserted' if r.asserted else '        '} {r.check['id']}: {r.evidence}")
    inputs = [reg_path] + [out[k] for k in ("condorcet_csv", "table1_long_csv", "c_lc_csv", "delta_ratio_csv")]
    write_sidecar(out["checks_csv"], inputs=inputs + sorted(os.path.normpath(p) for p in shard_paths),
                  config={k: v for k, v in s.items()}, seeds={"seed": int(s["seed"]),
                                                               "appendix_c": int(s["appendix_c"]["seed"])},
                  extra={"experiment": NAME, "fidelity": s["fidelity"],
                         "outcomes": {o: sum(r.outcome == o for r in results) for o in ("pass", "fail", "inconclusive")}},
                  **t.as_kwargs())
    return results


# --------------------------------------------------------------------------------------------
# cost extrapolation
# --------------------------------------------------------------------------------------------
def extrapolated_cost(config: Mapping, throughput_csv: str, cost_csv: str, *, fidelity: str = "paper"):
    """CPU seconds of every job of ``fidelity``, **extrapolated** from a smaller build's measurements.

    ``throughput_csv`` / ``cost_csv`` are ``throughput.csv`` and ``appendix_c_cost.csv`` of a
    finished build (e.g. the quick one). A simulation shard costs ``horizon x runs`` steps at the
    measured ``cpu_steps_per_second`` of its (dataset, algorithm) (per-step cost can change with
    t, so this is an extrapolation); an Appendix-C shard costs the sum over its samples of the
    measured CPU seconds per sample at that K (linearly interpolated between measured K).
    Returns one row per shard: ``part, name, algorithm, horizon, units, cpu_s``.
    """
    import pandas as pd

    thr = pd.read_csv(throughput_csv)
    rate = thr.groupby(["dataset", "algorithm"])["cpu_steps_per_second"].median().to_dict()
    cost = pd.read_csv(cost_csv)
    rows = []
    for sp in shard_specs(config, fidelity):
        r = rate.get((sp.dataset, sp.algorithm))
        steps = sp.horizon * (sp.run_stop - sp.run_start)
        rows.append({"part": "regret", "name": sp.dataset, "algorithm": sp.algorithm, "horizon": sp.horizon,
                     "units": steps, "cpu_s": steps / r if r else np.nan})
    for sh in appendix_c_shards(config, fidelity):
        c = cost[(cost["click_model"] == sh.click_model) & (cost["mode"] == sh.mode)].sort_values("K")
        ks = np.array([K for K, _ in sh.pairs()], dtype=float)
        per = np.interp(ks, c["K"].to_numpy(float), c["cpu_seconds_per_sample"].to_numpy(float)) if len(c) else np.nan
        rows.append({"part": "appendix_c", "name": sh.click_model, "algorithm": sh.mode, "horizon": 0,
                     "units": sh.stop - sh.start, "cpu_s": float(np.sum(per))})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------
# command line (the workflow's Appendix-C shard jobs)
# --------------------------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    return shard_job_main(argv, prog="python -m duelbench.experiments.zoghi2015", command="appendix-c-shard",
                          help="compute one Appendix-C shard", run=run_appendix_c_shard)


if __name__ == "__main__":
    sys.exit(main())
