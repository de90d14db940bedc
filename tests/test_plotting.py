"""Figure framing shared by the regret figures (duelbench.experiments.plotting)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from duelbench.experiments.plotting import STYLES, algorithm_colour, frame_curves, frame_top, panel_title  # noqa: E402


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
