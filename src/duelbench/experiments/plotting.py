"""Shared plotting: one colour, line style and label per algorithm across every figure.

Use :func:`algorithm_style` / :func:`algorithm_label` for any figure that shows algorithms, so
RUCB is the same colour in every paper's figures. Algorithms missing from :data:`STYLES` get a
colour derived from sha256 of their name (stable across processes and machines) and the
registry's ``title`` as label.

Figures are written without timestamps in their metadata (:func:`save_figure`), so the same
data give the same PDF/PNG bytes; logarithmic axes take a correctly rounded logarithm
(:class:`ExactLogScale`), so the same data give the same pixels on every processor.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.scale as mscale  # noqa: E402
import numpy as np  # noqa: E402

from duelbench.provenance.sidecar import atomic_write  # noqa: E402
from duelbench.report.numerics import flog, fpow  # noqa: E402


class ExactLogTransform(mscale.LogTransform):
    """matplotlib's logarithmic axis transform with a correctly rounded logarithm
    (:func:`duelbench.report.numerics.flog`): numpy's vectorised one and the C library's differ
    between processors in the last bit, which now and then moves a drawn point into the next
    pixel."""

    def transform_non_affine(self, values):
        a = np.asarray(values, dtype=np.float64)
        out = flog(a, self.base)
        if self._clip:
            out[a <= 0] = -1000  # as matplotlib's transform clips
        return np.ma.array(out, mask=np.ma.getmaskarray(values)) if np.ma.isMaskedArray(values) else out

    def inverted(self):
        return ExactInvertedLogTransform(self.base)


class ExactInvertedLogTransform(mscale.InvertedLogTransform):
    """The inverse of :class:`ExactLogTransform`, ``base ** value`` correctly rounded (:func:`duelbench.report.numerics.fpow`)."""

    def transform_non_affine(self, values):
        return fpow(self.base, values)

    def inverted(self):
        return ExactLogTransform(self.base)


class ExactLogScale(mscale.LogScale):
    """The ``"log"`` axis scale of matplotlib with :class:`ExactLogTransform` (registered in its
    place when this module is imported, so every figure's logarithmic axes use it)."""

    def __init__(self, *, base=10, subs=None, nonpositive="clip"):
        super().__init__(base=base, subs=subs, nonpositive=nonpositive)
        self._transform = ExactLogTransform(base, nonpositive)


mscale.register_scale(ExactLogScale)

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
    #: the standard errors; None draws the line alone (a reference line such as ``LB · ln t``)
    stderr: np.ndarray | None
    #: whether the frame is fitted to it (the curves the paper's text compares)
    compared: bool = True
    #: line width
    width: float = 1.4
    #: opacity of the ± 1 s.e. band
    band_alpha: float = 0.18
    #: drawing order among the panel's artists; None leaves matplotlib's
    zorder: float | None = None
    #: drawn as markers with error bars joined by a dotted line (one independent run per point)
    errorbars: bool = False


@dataclass(frozen=True)
class Panel:
    """One panel: its title, x range, curves and, if the paper gives one, its top y tick."""

    title: str
    #: the x range; None leaves matplotlib's
    xlim: tuple[float, float] | None
    curves: Sequence[Curve]
    #: the top of the frame; None fits it to the compared curves (:func:`frame_top`)
    top: float | None = None
    #: lines drawn after the curves (``stderr`` None); a panel with references only has no data
    references: Sequence[Curve] = ()


@dataclass(frozen=True)
class Frame:
    """How a paper frames its figure of regret panels: the layout and the axes, as data."""

    grid: tuple[int, int]
    size: tuple[float, float]
    xlabel: str
    ylabel: str
    xscale: str = "linear"
    yscale: str = "linear"
    #: scientific tick labels on both axes
    scientific: bool = False
    #: inches at the top for the legend
    legend_space: float = 0.35
    #: the ``tight_layout`` rectangle (figure fractions); None: 0.3 in at the bottom for the
    #: footer and ``legend_space`` at the top
    rect: tuple[float, float, float, float] | None = None
    #: the y label on the first panel only (else on every panel)
    first_ylabel: bool = False
    #: most columns of the legend
    legend_columns: int = 6
    #: font sizes of the legend and the panel titles; None leaves matplotlib's
    legend_size: float | None = 8
    title_size: float | None = 9
    #: height (figure fraction) and font size of the footer
    footer_y: float = 0.005
    footer_size: float = 7
    #: markers on curves of fewer than 20 points (an independent run per horizon point)
    sparse_markers: bool = True


def _given(**kwargs) -> dict:
    """The keyword arguments that are not None (left to matplotlib's defaults otherwise)."""
    return {k: v for k, v in kwargs.items() if v is not None}


def draw_curve(ax, curve: Curve, sparse_markers: bool = True):
    """Draw ``curve`` on ``ax``; returns its legend handle.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The panel.
    curve : Curve
        Its mean, drawn with a ± 1 s.e. band, as error bars (``curve.errorbars``) or, without
        standard errors, as a line alone.
    sparse_markers : bool
        Markers on a line of fewer than 20 points.

    Returns
    -------
    matplotlib.lines.Line2D or matplotlib.container.ErrorbarContainer
    """
    t, m = np.asarray(curve.t, float), np.asarray(curve.mean, float)
    se = None if curve.stderr is None else np.nan_to_num(np.asarray(curve.stderr, float))
    colour = curve.style["color"]
    if curve.errorbars:
        handle = ax.errorbar(t, m, yerr=se, fmt="o", ms=4, capsize=2, color=colour, label=curve.label, lw=0.8,
                             **_given(zorder=curve.zorder))
        ax.plot(t, m, color=colour, lw=0.6, ls=":")
        return handle
    markers = {"marker": "o" if len(t) < 20 else None, "ms": 3} if sparse_markers else {}
    (line,) = ax.plot(t, m, lw=curve.width, **markers, **_given(zorder=curve.zorder), label=curve.label,
                      **curve.style)
    if se is not None:
        ax.fill_between(t, m - se, m + se, color=colour, alpha=curve.band_alpha, lw=0)
    return line


def curve_top(curve: Curve) -> float:
    """The highest point of ``curve`` with its band (its mean without standard errors)."""
    m = np.asarray(curve.mean, float)
    return float(np.max(m if curve.stderr is None else m + np.nan_to_num(np.asarray(curve.stderr, float))))


def draw_panel(ax, frame: Frame, panel: Panel, handles: dict) -> None:
    """Draw ``panel`` on ``ax`` as ``frame`` frames it.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The panel's axes.
    frame : Frame
        The figure's framing.
    panel : Panel
        Its curves, then its reference lines; curves leaving the frame are marked
        (:func:`frame_curves`).
    handles : dict
        Legend label -> handle, completed with the labels first drawn here.
    """
    drawn, tops = [], []
    for c in (*panel.curves, *panel.references):
        handles.setdefault(c.label, draw_curve(ax, c, frame.sparse_markers))
        drawn.append((c.label, c.style["color"], np.asarray(c.t, float), np.asarray(c.mean, float)))
        if c.compared:
            tops.append(curve_top(c))
    if frame.xscale != "linear":
        ax.set_xscale(frame.xscale)
    if frame.yscale != "linear":
        ax.set_yscale(frame.yscale)
    if panel.xlim is not None:
        ax.set_xlim(*panel.xlim)
    frame_curves(ax, panel.top if panel.top is not None else frame_top(tops), drawn)
    ax.set_title(panel.title, **_given(fontsize=frame.title_size))
    ax.set_xlabel(frame.xlabel)
    if not frame.first_ylabel:
        ax.set_ylabel(frame.ylabel)
    ax.grid(True, which="major", alpha=0.3)
    if frame.scientific:
        ax.ticklabel_format(axis="both", style="sci", scilimits=(-3, 4))
    if not panel.curves:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)


def curve_panels(frame: Frame, panels: Sequence[Panel], legend: Sequence[str] | None, footer: str):
    """The figure of ``panels`` (filled row by row) as ``frame`` lays it out; returns the figure.

    Parameters
    ----------
    frame : Frame
        The layout and the axes.
    panels : sequence of Panel
        Drawn by :func:`draw_panel`; axes of the grid left without a panel are hidden.
    legend : sequence of str or None
        The legend's labels, those drawn in this order; None: every label in the order first drawn.
    footer : str
        Printed under the panels (nothing when empty).

    Returns
    -------
    matplotlib.figure.Figure
    """
    rows, cols = frame.grid
    fig, axes = plt.subplots(rows, cols, figsize=frame.size, squeeze=False)
    handles = {}
    for k, panel in enumerate(panels):
        draw_panel(axes[k // cols][k % cols], frame, panel, handles)
    if frame.first_ylabel:
        axes[0][0].set_ylabel(frame.ylabel)
    for k in range(len(panels), rows * cols):
        axes[k // cols][k % cols].set_visible(False)
    labels = list(handles) if legend is None else [label for label in legend if label in handles]
    if labels:
        fig.legend([handles[label] for label in labels], labels, loc="upper center",
                   ncol=min(len(labels), frame.legend_columns), frameon=False, fontsize=frame.legend_size,
                   bbox_to_anchor=(0.5, 1.0))
    if footer:
        fig.suptitle(footer, y=frame.footer_y, va="bottom", fontsize=frame.footer_size, color="#555555")
    height = fig.get_figheight()
    fig.tight_layout(rect=frame.rect or (0, 0.3 / height, 1, 1 - frame.legend_space / height))
    return fig


def save_figure(fig, paths: Sequence[str], dpi: int = 150) -> None:
    """Save ``fig`` to each path (format from the suffix) atomically, without timestamps."""
    for path in paths:
        fmt = os.path.splitext(path)[1].lstrip(".").lower()
        metadata = {"pdf": {"CreationDate": None, "ModDate": None}, "png": {"Software": None},
                    "svg": {"Date": None}}.get(fmt)
        atomic_write(path, partial(fig.savefig, format=fmt, dpi=dpi, metadata=metadata))
    plt.close(fig)
