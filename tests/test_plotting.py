"""Figure framing shared by the regret figures (duelbench.experiments.plotting)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402
from matplotlib.font_manager import FontProperties  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from duelbench.experiments.plotting import (  # noqa: E402
    STYLES, Curve, Frame, Panel, algorithm_colour, curve_panels, frame_curves, frame_top, panel_title)


def test_frame_top_fits_the_compared_curves_with_headroom():
    assert frame_top([100.0, 250.0, np.nan, -1.0]) == pytest.approx(287.5)
    assert frame_top([np.nan, 0.0]) is None


def test_curves_above_the_frame_are_marked_where_they_leave_and_listed():
    fig, ax = plt.subplots()
    t = np.array([1.0, 10.0, 100.0, 1000.0])
    low = np.array([0.0, 10.0, 20.0, 30.0])
    high = np.array([0.0, 20.0, 400.0, 1000.0])
    ax.set_xscale("log")
    listed = frame_curves(ax, frame_top([low.max()]), [("low", "#000000", t, low), ("high", "#ff0000", t, high)])
    assert listed == ["high: 1e+03"]
    assert ax.get_ylim() == pytest.approx((0.0, 34.5))
    (marker,) = [ln for ln in ax.lines if ln.get_marker() == "^"]
    x, y = marker.get_xdata()[0], marker.get_ydata()[0]
    assert y == pytest.approx(34.5)
    # the exit is interpolated in log t between t = 10 (20) and t = 100 (400)
    assert 10.0 < x < 100.0 and np.log10(x) == pytest.approx(1 + (34.5 - 20) / 380)
    assert any("high: 1e+03" in tx.get_text() for tx in ax.texts)
    plt.close(fig)


def test_nothing_listed_when_every_curve_fits():
    fig, ax = plt.subplots()
    assert frame_curves(ax, 10.0, [("a", "#000000", [1, 2], [1, 2])]) == []
    assert not ax.texts
    plt.close(fig)


def test_algorithms_drawn_together_have_different_hues():
    # the series of one figure each (Zoghi et al. 2015 Figures 1-3; Komiyama et al. 2016 Figure 1)
    for names in (["ccb", "scb", "copeland_savage", "rucb"],
                  ["random", "copeland_savage", "rucb", "rmed1", "ccb", "ecw_rmed"]):
        colours = [algorithm_colour(n) for n in names]
        assert len(set(colours)) == len(names), dict(zip(names, colours))
    assert len(set(STYLES)) == len(STYLES)


def test_panel_title_letters_follow_the_position():
    assert panel_title(0, "Sushi (K = 16)", "sushi") == "(a) Sushi (K = 16)\n[sushi]"
    assert panel_title(2, "x", "y").startswith("(c) x")


def _curve(label, colour, mean, **kw):
    t = np.array([1.0, 10.0, 100.0, 1000.0])
    return Curve(label, {"color": colour, "linestyle": "-"}, t, np.asarray(mean, float), np.full(4, 0.5), **kw)


def test_curve_panels_draws_reference_lines_after_the_curves_without_band():
    t = np.geomspace(1.0, 1000.0, 50)
    bound = Curve("LB · ln t", {"color": "#000000", "ls": "-"}, t, 2.0 * np.log(t), None, width=1.0, zorder=1)
    frame = Frame(grid=(1, 2), size=(8, 3), xlabel="t", ylabel="R(t)", xscale="log", sparse_markers=False)
    fig = curve_panels(frame, [Panel("a", (1, 1000), [_curve("A", "#ff0000", [1, 2, 3, 4])], references=[bound]),
                               Panel("b", (1, 1000), [], references=[bound])], None, "footer")
    ax, bare = fig.axes[0], fig.axes[1]
    assert [ln.get_label() for ln in ax.lines] == ["A", "LB · ln t"]
    line = ax.lines[1]
    assert line.get_zorder() == 1 and line.get_linewidth() == 1.0
    assert np.allclose(line.get_ydata(), 2.0 * np.log(t))
    assert len(ax.collections) == 1  # the band of A only
    # the frame holds the compared reference line: LB ln T with headroom
    assert ax.get_ylim()[1] == pytest.approx(1.15 * 2.0 * np.log(1000.0))
    assert [tx.get_text() for tx in bare.texts] == ["no data"]  # reference lines are not data
    assert [tx.get_text() for tx in fig.legends[0].get_texts()] == ["A", "LB · ln t"]
    plt.close(fig)


def test_curve_panels_draws_error_bar_curves_with_a_dotted_line():
    frame = Frame(grid=(1, 1), size=(4, 3), xlabel="t", ylabel="R(t)", sparse_markers=False)
    bars = _curve("S", "#00ff00", [1, 2, 3, 4], errorbars=True)
    fig = curve_panels(frame, [Panel("a", None, [_curve("A", "#ff0000", [1, 2, 3, 4], zorder=3), bars])],
                       ["S", "A"], "")
    (ax,) = fig.axes
    (container,) = ax.containers
    assert isinstance(container, ErrorbarContainer)
    assert container.get_label() == "S"
    assert np.allclose(container.lines[0].get_ydata(), [1, 2, 3, 4])
    assert [ln.get_linestyle() for ln in ax.lines if ln.get_color() == "#00ff00"].count(":") == 1
    assert ax.lines[0].get_zorder() == 3
    assert len(ax.collections) == 2  # A's band and S's error bars, S without band
    assert [tx.get_text() for tx in fig.legends[0].get_texts()] == ["S", "A"]
    assert not fig.texts  # no footer
    plt.close(fig)


def test_curve_panels_hides_spare_axes_and_labels_the_first_panel_only():
    frame = Frame(grid=(2, 2), size=(8, 6), xlabel="t", ylabel="R(t)", yscale="log", first_ylabel=True,
                  legend_columns=1, title_size=None, rect=(0, 0.05, 1, 0.9))
    panels = [Panel(k, None, [_curve("A", "#ff0000", [1, 2, 3, 4], width=2.5, band_alpha=0.4, compared=False)])
              for k in "abc"]
    fig = curve_panels(frame, panels, None, "footer")
    axes = fig.axes
    assert [ax.get_visible() for ax in axes] == [True, True, True, False]
    assert [ax.get_ylabel() for ax in axes[:3]] == ["R(t)", "", ""]
    assert all(ax.get_yscale() == "log" and ax.get_xscale() == "linear" for ax in axes[:3])
    line = axes[0].lines[0]
    assert line.get_linewidth() == 2.5 and line.get_marker() == "o"  # four points: markers (sparse_markers)
    assert axes[0].collections[0].get_alpha() == 0.4
    assert axes[0].title.get_fontsize() == FontProperties(size=plt.rcParams["axes.titlesize"]).get_size_in_points()
    assert fig.legends[0]._ncols == 1
    plt.close(fig)
