"""Shared plotting: one colour, line style and label per algorithm across every figure.

Use :func:`algorithm_style` / :func:`algorithm_label` for any figure that shows algorithms, so
RUCB is the same colour in every paper's figures. Algorithms missing from :data:`STYLES` get a
colour derived from sha256 of their name (stable across processes and machines) and the
registry's ``title`` as label.

Figures are written without timestamps in their metadata (:func:`save_figure`), so the same
data give the same PDF/PNG bytes; logarithmic axes take the C library's logarithm
(:class:`LibmLogScale`), so the same data give the same pixels on every processor.
"""

from __future__ import annotations

import hashlib
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.scale as mscale  # noqa: E402
import numpy as np  # noqa: E402

from duelbench.report.numerics import flog, fpow  # noqa: E402


class LibmLogTransform(mscale.LogTransform):
    """matplotlib's logarithmic axis transform with the C library's logarithm
    (:func:`duelbench.report.numerics.flog`): numpy's vectorised one differs between processors in
    the last bit, which now and then moves a drawn point into the next pixel."""

    def transform_non_affine(self, values):
        a = np.asarray(values, dtype=np.float64)
        out = flog(a, self.base)
        if self._clip:
            out[a <= 0] = -1000  # as matplotlib's transform clips
        return np.ma.array(out, mask=np.ma.getmaskarray(values)) if np.ma.isMaskedArray(values) else out

    def inverted(self):
        return LibmInvertedLogTransform(self.base)


class LibmInvertedLogTransform(mscale.InvertedLogTransform):
    """The inverse of :class:`LibmLogTransform`, ``base ** value`` by the C library's ``pow``."""

    def transform_non_affine(self, values):
        return fpow(self.base, values)

    def inverted(self):
        return LibmLogTransform(self.base)


class LibmLogScale(mscale.LogScale):
    """The ``"log"`` axis scale of matplotlib with :class:`LibmLogTransform` (registered in its
    place when this module is imported, so every figure's logarithmic axes use it)."""

    def __init__(self, *, base=10, subs=None, nonpositive="clip"):
        super().__init__(base=base, subs=subs, nonpositive=nonpositive)
        self._transform = LibmLogTransform(base, nonpositive)


mscale.register_scale(LibmLogScale)

# Okabe–Ito colour-blind-safe palette, then tab10 shades for the rest.
_OI = {
    "black": "#000000", "orange": "#E69F00", "sky": "#56B4E9", "green": "#009E73",
    "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "purple": "#CC79A7",
}

#: name → (label, colour, line style). Keys are registry names. Every algorithm that appears in
#: one figure of the papers has its own hue (CCB, SCB and RUCB, drawn together in Zoghi et al.
#: 2015 Figures 1-3, are orange, wine and blue); variants of one algorithm share the hue and
#: differ in line style.
STYLES: dict[str, tuple[str, str, str]] = {
    "random": ("Random", "#7f7f7f", ":"),
    "rucb": ("RUCB", _OI["blue"], "-"),
    "rmed1": ("RMED1", _OI["vermillion"], "-"),
    "rmed2": ("RMED2", _OI["vermillion"], "--"),
    "rmed2fh": ("RMED2FH", _OI["vermillion"], ":"),
    "ecw_rmed": ("ECW-RMED", _OI["purple"], "-"),
    "dts": ("D-TS", _OI["green"], "-"),
    "dts_plus": ("D-TS+", "#117733", "--"),
    "ccb": ("CCB", _OI["orange"], "-"),
    "scb": ("SCB", "#882255", "--"),
    "rcs": ("RCS", _OI["black"], "-"),
    "savage": ("Copeland SAVAGE", "#8c564b", "-."),
    "copeland_savage": ("Copeland SAVAGE", "#8c564b", "-."),
    "condorcet_savage": ("Condorcet SAVAGE", "#c49c94", "-."),
    "btm": ("BTM", "#bcbd22", "-."),
    "sparring": ("Sparring", _OI["sky"], "-."),
    "pbr": ("PBR", "#9467bd", "-."),
    "rankel": ("RankEl", "#e377c2", "-."),
    "if": ("IF", "#7f7f7f", "--"),
    # the batched algorithms of Agarwal et al. (2022), drawn with RMED1, RUCB and BTM
    "pcomp": ("PCOMP", "#44AA99", "-"),
    "scomp": ("SCOMP", "#332288", "-"),
    "scomp2": ("SCOMP2", "#AA4499", "-"),
}

_FALLBACK = list(plt.get_cmap("tab20").colors)


def _registry_title(name: str) -> str | None:
    try:
        from duelbench.algorithms.registry import get_algorithm  # loads every algorithm module: only for a title

        return get_algorithm(name).title
    except Exception:  # registry unavailable or unknown name: fall back to the raw name
        return None


def algorithm_label(name: str) -> str:
    """Legend label of algorithm ``name``."""
    if name in STYLES:
        return STYLES[name][0]
    return _registry_title(name) or name


def algorithm_colour(name: str) -> str:
    """Colour of algorithm ``name`` (stable for names missing from :data:`STYLES`)."""
    if name in STYLES:
        return STYLES[name][1]
    idx = int(hashlib.sha256(name.encode()).hexdigest(), 16) % len(_FALLBACK)
    return matplotlib.colors.to_hex(_FALLBACK[idx])


def algorithm_style(name: str) -> dict:
    """Keyword arguments for ``Axes.plot``: ``color``, ``linestyle``, ``label``."""
    ls = STYLES[name][2] if name in STYLES else "-"
    return {"color": algorithm_colour(name), "linestyle": ls, "label": algorithm_label(name)}


def frame_top(values, headroom: float = 1.15) -> float | None:
    """Upper y-limit that holds ``values`` (the curves a figure compares) with ``headroom``.

    ``None`` when no value is positive and finite (leave matplotlib's limits).
    """
    v = [float(x) for x in values if np.isfinite(x) and x > 0]
    return headroom * max(v) if v else None


def frame_curves(ax, top: float | None, curves: Sequence[tuple[str, str, np.ndarray, np.ndarray]]) -> list[str]:
    """Set the y range to ``[0, top]`` and mark every curve that leaves it.

    The papers' regret figures are semilog plots (log t, linear regret), so one linearly growing
    curve flattens the logarithmic ones the paper compares. The frame is chosen for the compared
    curves (:func:`frame_top`); each ``(label, colour, t, mean)`` curve that rises above it gets
    a triangle in its colour where it leaves the frame, and its value at the last ``t`` is listed
    in the upper left corner. Returns the listed labels.
    """
    if top is None:
        return []
    ax.set_ylim(0, top)
    out = []
    for label, colour, t, mean in curves:
        t, mean = np.asarray(t, float), np.asarray(mean, float)
        above = np.flatnonzero(mean > top)
        if not len(above):
            continue
        i = int(above[0])
        x = t[i]
        if i > 0 and mean[i] > mean[i - 1] and t[i - 1] > 0:  # interpolate the exit in log t
            f = (top - mean[i - 1]) / (mean[i] - mean[i - 1])
            x = math.exp(math.log(t[i - 1]) + f * (math.log(t[i]) - math.log(t[i - 1])))
        ax.plot([x], [top], marker="^", ms=7, color=colour, clip_on=False, zorder=5, ls="none")
        out.append(f"{label}: {mean[-1]:.2g}")
    if out:
        ax.text(0.02, 0.97, "above the frame (mean at T):\n" + "\n".join(out), transform=ax.transAxes,
                fontsize=6.5, va="top", ha="left", color="#333333",
                bbox={"facecolor": "white", "edgecolor": "#cccccc", "alpha": 0.85, "pad": 2})
    return out


def panel_title(letter: int, paper_title: str, dataset: str) -> str:
    """Panel title as in the paper, ``(a) <paper's name>``, with the suite's dataset id beside."""
    return f"({chr(ord('a') + letter)}) {paper_title}\n[{dataset}]"


@dataclass(frozen=True)
class Curve:
    """One mean regret curve of a panel, with its band of ± 1 s.e."""

    label: str
    #: ``Axes.plot`` keyword arguments besides the label (``color``, ``linestyle``, ...)
    style: Mapping
    t: np.ndarray
    mean: np.ndarray
    stderr: np.ndarray
    #: whether the frame is fitted to it (the curves the paper's text compares)
    compared: bool = True


@dataclass(frozen=True)
class Panel:
    """One panel: its title, x range, curves and, if the paper gives one, its top y tick."""

    title: str
    xlim: tuple[float, float]
    curves: Sequence[Curve]
    #: the top of the frame; None fits it to the compared curves (:func:`frame_top`)
    top: float | None = None


@dataclass(frozen=True)
class Frame:
    """How a paper frames its figure of regret panels: the layout and the axes, as data."""

    grid: tuple[int, int]
    size: tuple[float, float]
    xlabel: str
    ylabel: str
    xscale: str = "linear"
    #: scientific tick labels on both axes
    scientific: bool = False
    #: inches at the top for the legend
    legend_space: float = 0.35


def curve_panels(frame: Frame, panels: Sequence[Panel], legend: Sequence[str], footer: str):
    """The figure of ``panels`` (filled row by row) as ``frame`` lays it out; returns the figure.

    Each curve is its mean with a ± 1 s.e. band (markers where it has fewer than 20 points: an
    independent run per horizon point); curves leaving the frame are marked (:func:`frame_curves`);
    the legend lists the labels of ``legend`` that are drawn, in that order; ``footer`` is printed
    under the panels.
    """
    rows, cols = frame.grid
    fig, axes = plt.subplots(rows, cols, figsize=frame.size, squeeze=False)
    handles = {}
    for k, panel in enumerate(panels):
        ax = axes[k // cols][k % cols]
        drawn, tops = [], []
        for c in panel.curves:
            tt, m, se = np.asarray(c.t, float), np.asarray(c.mean, float), np.nan_to_num(np.asarray(c.stderr, float))
            (line,) = ax.plot(tt, m, lw=1.4, marker="o" if len(tt) < 20 else None, ms=3, label=c.label, **c.style)
            ax.fill_between(tt, m - se, m + se, color=c.style["color"], alpha=0.18, lw=0)
            handles.setdefault(c.label, line)
            drawn.append((c.label, c.style["color"], tt, m))
            if c.compared:
                tops.append(float(np.max(m + se)))
        if frame.xscale != "linear":
            ax.set_xscale(frame.xscale)
        ax.set_xlim(*panel.xlim)
        frame_curves(ax, panel.top if panel.top is not None else frame_top(tops), drawn)
        ax.set_title(panel.title, fontsize=9)
        ax.set_xlabel(frame.xlabel)
        ax.set_ylabel(frame.ylabel)
        ax.grid(True, which="major", alpha=0.3)
        if frame.scientific:
            ax.ticklabel_format(axis="both", style="sci", scilimits=(-3, 4))
        if not panel.curves:
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    labels = [label for label in legend if label in handles]
    fig.legend([handles[label] for label in labels], labels, loc="upper center", ncol=min(len(labels), 6),
               frameon=False, fontsize=8, bbox_to_anchor=(0.5, 1.0))
    fig.suptitle(footer, y=0.005, va="bottom", fontsize=7, color="#555555")
    fig.tight_layout(rect=(0, 0.3 / fig.get_figheight(), 1, 1 - frame.legend_space / fig.get_figheight()))
    return fig


def regret_panels(
    table,
    *,
    kind: str = "copeland",
    panels: Sequence[str] | None = None,
    labels: Mapping[tuple[str, str], str] | None = None,
    title: str | None = None,
    ylabel: str | None = None,
    panel_size: tuple[float, float] = (4.2, 3.2),
    yscale: str = "linear",
):
    """Cumulative regret against t (log x), one panel per dataset, mean ± 1 s.e. shaded.

    ``yscale="log"`` draws regret on a log axis too (points with zero mean regret are left out),
    for panels where a linear-regret baseline would flatten the others onto the axis.

    ``table`` has the columns of :data:`duelbench.experiments.aggregate.CURVE_COLUMNS`.
    ``labels`` maps (algorithm, param_hash) to a legend label (default: :func:`algorithm_label`).
    Variants of one algorithm share its colour and differ in line style.
    """
    data = table[table["kind"] == kind]
    panels = list(panels) if panels is not None else sorted(data["dataset"].unique())
    fig, axes = plt.subplots(1, len(panels), figsize=(panel_size[0] * len(panels), panel_size[1]), squeeze=False)
    variant_styles = ["-", "--", "-.", ":"]
    handles = {}
    for ax, dataset in zip(axes[0], panels):
        sub = data[data["dataset"] == dataset]
        present = {(a, h) for a, h in zip(sub["algorithm"], sub["param_hash"])}
        # order of `labels` (the configured order) first, then the rest sorted
        keys = [k for k in (labels or {}) if k in present] + sorted(present - set(labels or {}))
        for algorithm, phash in keys:
            curve = sub[(sub["algorithm"] == algorithm) & (sub["param_hash"] == phash)].sort_values("t")
            t = curve["t"].to_numpy(dtype=float)
            mean = curve["mean"].to_numpy(dtype=float)
            se = np.nan_to_num(curve["stderr"].to_numpy(dtype=float))
            style = algorithm_style(algorithm)
            variants = sorted(h for a, h in keys if a == algorithm)
            if len(variants) > 1:
                style["linestyle"] = variant_styles[variants.index(phash) % len(variant_styles)]
            label = (labels or {}).get((algorithm, phash), style["label"])
            style["label"] = label
            mask = (t > 0) & (mean > 0) if yscale == "log" else t > 0
            (line,) = ax.plot(t[mask], mean[mask], lw=1.6, **style)
            ax.fill_between(t[mask], (mean - se)[mask], (mean + se)[mask], color=style["color"], alpha=0.2, lw=0)
            handles.setdefault(label, line)
        ax.set_xscale("log")
        ax.set_yscale(yscale)
        ax.set_title(dataset)
        ax.set_xlabel("time step t")
        ax.grid(True, which="major", alpha=0.3)
        if not len(sub):
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    axes[0][0].set_ylabel(ylabel or f"cumulative {kind} regret")
    if handles:
        fig.legend(list(handles.values()), list(handles), loc="upper center", ncol=min(len(handles), 6),
                   frameon=False, bbox_to_anchor=(0.5, 1.0))
    if title:
        fig.suptitle(title, y=0.02, va="bottom", fontsize=8, color="#555555")
    fig.tight_layout(rect=(0, 0.05, 1, 0.93))
    return fig


def save_figure(fig, paths: Sequence[str], dpi: int = 150) -> None:
    """Save ``fig`` to each path (format from the suffix) atomically, without timestamps."""
    for path in paths:
        fmt = os.path.splitext(path)[1].lstrip(".").lower()
        folder = os.path.dirname(path) or "."
        os.makedirs(folder, exist_ok=True)
        metadata = {"pdf": {"CreationDate": None, "ModDate": None}, "png": {"Software": None},
                    "svg": {"Date": None}}.get(fmt)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix="." + fmt, dir=folder)
        os.close(fd)
        try:
            fig.savefig(tmp, format=fmt, dpi=dpi, metadata=metadata)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    plt.close(fig)
