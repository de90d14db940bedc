"""Appendix C of Zoghi et al. (2015): Figures 4, 5 and 6 drawn from the tables of
:mod:`.appendix_c_tables` (Figure 4: P_K per click model, Figure 5: bubble plots of C and L_C,
Figure 6: mean and median of Delta^2 / Delta_min^2 per K, log y)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import MaxNLocator

from ..contract import StepContext
from ..plotting import save_figure
from .appendix_c import N_ARMS
from .config import MAIN_CLICK_MODEL

_MODEL_STYLE = {"mslr_informational": ("informational", "#0072B2", "-"),
                "mslr_navigational": ("navigational", "#D55E00", "--"),
                "mslr_perfect": ("perfect", "#009E73", ":")}


def write_figures(ctx: StepContext) -> dict:
    """Figures 4, 5, 6 from the Appendix-C tables."""
    s, inp, out = ctx.settings, ctx.input, ctx.output
    a = s["appendix_c"]
    n = int(a["samples_per_k"])
    note = f"{n} samples per K, fidelity {s['fidelity']}"
    # Figure 4
    cond = pd.read_csv(inp.condorcet_csv)
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
    save_figure(fig, [out.figure4_pdf, out.figure4_png])
    # Figure 5
    dist = pd.read_csv(inp.c_lc_csv)
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
    save_figure(fig, [out.figure5_pdf, out.figure5_png])
    # Figure 6
    ratio = pd.read_csv(inp.delta_ratio_csv)
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    ax.plot(ratio["K"], ratio["mean_ratio"], color="#0072B2", lw=1.5, label="mean",
            marker="o" if len(ratio) < 20 else None, ms=3)
    ax.plot(ratio["K"], ratio["median_ratio"], color="#E69F00", lw=1.0, ls="--", label="median",
            marker="s" if len(ratio) < 20 else None, ms=3)
    full = ratio[ratio["K"] == N_ARMS]
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
    save_figure(fig, [out.figure6_pdf, out.figure6_png])
    return {"appendix_c_seed": int(a["seed"])}
