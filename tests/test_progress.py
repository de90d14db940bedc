"""Progress lines with the time left (duelbench.progress): the estimate from the measured
throughput, plain lines off a terminal, a bar on one, and the file watcher of a build."""

from __future__ import annotations

import io

import pytest

from duelbench.progress import FileProgress, Progress, format_duration, progress_line, time_left


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("seconds, text", [(4.567, "4.57 s"), (59.0, "59 s"), (754.0, "12.6 min"),
                                           (12_300.0, "3.42 h")])
def test_durations_read_with_three_significant_digits(seconds, text):
    assert format_duration(seconds) == text


def test_time_left_is_the_measured_throughput_applied_to_the_rest():
    assert time_left(10.0, 2, 8) == pytest.approx(30.0)
    assert time_left(10.0, 0, 8) is None
    assert time_left(10.0, 8, 8) == 0.0


def test_plain_lines_carry_the_count_share_and_time_left():
    out, clock = io.StringIO(), Clock()
    p = Progress(4, label="run", stream=out, quiet_for=2.0, interval=1.0, clock=clock)
    clock.now += 1.0
    p.update(1)  # within the quiet time: nothing
    assert out.getvalue() == ""
    clock.now += 2.0
    p.update(2)  # 3 s for 2 runs: 3 s left
    clock.now += 0.5
    p.update(3)  # less than `interval` after the last line: nothing
    clock.now += 0.5
    p.update(4)
    lines = out.getvalue().splitlines()
    assert lines == ["  run 2/4 done (50 %, 3 s elapsed, about 3 s left)", "  run 4/4 done (100 %, 4 s elapsed)"]


def test_a_terminal_gets_one_redrawn_bar():
    out, clock = Terminal(), Clock()
    p = Progress(2, stream=out, quiet_for=0.0, clock=clock)
    clock.now += 5.0
    p.update(1)
    clock.now += 5.0
    p.update(2)
    text = out.getvalue()
    assert text.count("\r") == 2 and text.endswith("\n") and text.count("\n") == 1
    assert "[############............]" in text and "about 5 s left" in text


def test_short_work_stays_silent():
    out, clock = io.StringIO(), Clock()
    p = Progress(3, stream=out, clock=clock)
    for i in range(1, 4):
        clock.now += 0.1
        p.update(i)
    assert out.getvalue() == ""


def test_file_progress_weights_items_by_their_cost(tmp_path):
    files = [str(tmp_path / f"s{i}.json") for i in range(3)]
    (tmp_path / "s0.json").write_text("{}")  # done before the build: not counted in the throughput
    clock = Clock()
    w = FileProgress(files, [10.0, 30.0, 60.0], stream=io.StringIO(), clock=clock)
    clock.now += 60.0
    assert w.poll() == "shards 1/3 done (10 %, 1 min elapsed, time left unknown)"
    assert w.poll() is None  # nothing changed
    (tmp_path / "s1.json").write_text("{}")
    clock.now += 60.0  # 30 of 90 units of this build's work in 120 s: 60 units left take 240 s
    assert w.poll() == "shards 2/3 done (40 %, 2 min elapsed, about 4 min left)"
    (tmp_path / "s2.json").write_text("{}")
    assert w.poll() == "shards 3/3 done (100 %, 2 min elapsed)"


def test_file_progress_needs_a_weight_per_file():
    with pytest.raises(ValueError, match="2 files but 1 weights"):
        FileProgress(["a", "b"], [1.0])
