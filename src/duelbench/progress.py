"""Progress of long work with an estimate of the time left, from the throughput measured so far.

Two reporters share one line format (:func:`progress_line`):

* :class:`Progress`: the caller says how much is done (``duelbench run``: runs of a simulation);
* :class:`FileProgress`: a watcher thread that counts finished output files (a Snakemake build:
  its shard jobs), each weighted by its estimated cost.

On a terminal the line is redrawn in place (a bar); otherwise (a pipe, a log file, a cluster
job) plain lines are written, at most one every ``interval`` seconds, and always the last one.
The estimate is ``elapsed · (total − done) / done``: the throughput measured so far (done work
per second of wall time) applied to the work left; none is given before any work is done.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import TextIO

#: width of the terminal bar in characters
BAR_WIDTH = 24


def format_duration(seconds: float) -> str:
    """A duration with three significant digits and a unit a person reads at a glance: ``45.2 s``,
    ``12.5 min``, ``3.41 h``."""
    if seconds < 60:
        return f"{seconds:.3g} s"
    if seconds < 3600:
        return f"{seconds / 60:.3g} min"
    return f"{seconds / 3600:.3g} h"


def time_left(elapsed: float, done: float, total: float) -> float | None:
    """Seconds left at the measured throughput ``done / elapsed`` (None before any work is done)."""
    if done <= 0 or elapsed <= 0:
        return None
    return max(total - done, 0.0) * elapsed / done


def progress_line(label: str, count: int, count_total: int, elapsed: float, fraction: float,
                  left: float | None, bar: bool = False) -> str:
    """``label count/total [bar] pct %, elapsed, about left`` (the bar on a terminal only).

    Parameters
    ----------
    label : str
        What is counted, e.g. ``"run"`` or ``"shards"``.
    count, count_total : int
        Items finished and planned.
    elapsed : float
        Wall seconds since the start.
    fraction : float
        Share of the work done (items weighted by their cost), in [0, 1].
    left : float or None
        Estimated seconds left (:func:`time_left`); None: not yet known.
    bar : bool
        Draw a bar of :data:`BAR_WIDTH` characters.
    """
    parts = [f"{label} {count}/{count_total} done"]
    if bar:
        filled = int(round(BAR_WIDTH * min(max(fraction, 0.0), 1.0)))
        parts.append("[" + "#" * filled + "." * (BAR_WIDTH - filled) + "]")
    tail = f"{100 * fraction:.3g} %, {format_duration(elapsed)} elapsed"
    if count < count_total:
        tail += ", time left unknown" if left is None else f", about {format_duration(left)} left"
    return " ".join(parts) + " (" + tail + ")"


class Progress:
    """Progress of ``total`` equal items (e.g. the runs of a simulation), told by the caller.

    Parameters
    ----------
    total : int
        Items planned.
    label : str
        The item's name in the line (``"run"``).
    stream : file, optional
        Where to write (standard error by default).
    quiet_for : float
        Seconds during which nothing is written (short work stays silent).
    interval : float
        Least seconds between two plain lines (not on a terminal).
    clock : callable, optional
        Seconds (monotonic; :func:`time.perf_counter` by default).
    """

    def __init__(self, total: int, label: str = "run", stream: TextIO | None = None, quiet_for: float = 2.0,
                 interval: float = 1.0, clock: Callable[[], float] | None = None):
        self.total, self.label = int(total), label
        self.stream = sys.stderr if stream is None else stream
        self.quiet_for, self.interval = quiet_for, interval
        self.clock = clock or time.perf_counter
        self.start = self.clock()
        self._last_line = -float("inf")
        self._drawn = False
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def update(self, done: int) -> None:
        """``done`` items are finished: write a line if it is time (always for the last item)."""
        now = self.clock()
        elapsed = now - self.start
        last = done >= self.total
        if elapsed < self.quiet_for and not (last and self._drawn):
            return
        if not self.tty and not last and now - self._last_line < self.interval:
            return
        line = progress_line(self.label, done, self.total, elapsed, done / self.total if self.total else 1.0,
                             time_left(elapsed, done, self.total), bar=self.tty)
        if self.tty:
            self.stream.write("\r" + line + ("\n" if last else ""))
        else:
            self.stream.write("  " + line + "\n")
        self.stream.flush()
        self._last_line, self._drawn = now, True


class FileProgress:
    """Progress of work whose items each end by writing a file: a thread that polls the files.

    Parameters
    ----------
    files : sequence of str
        One file per item; an item is finished when its file exists.
    weights : sequence of float
        Each item's estimated cost (e.g. CPU seconds); the share done and the time left are
        computed from them, so a long shard counts for more than a short one.
    label : str
        The items' name in the line (``"shards"``).
    stream, interval, clock
        As for :class:`Progress`; ``interval`` is also the polling period.
    """

    def __init__(self, files: Sequence[str], weights: Sequence[float], label: str = "shards",
                 stream: TextIO | None = None, interval: float = 30.0,
                 clock: Callable[[], float] | None = None):
        if len(files) != len(weights):
            raise ValueError(f"{len(files)} files but {len(weights)} weights")
        self.files, self.weights = list(files), [float(w) for w in weights]
        self.total = sum(self.weights)
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.interval = interval
        self.clock = clock or time.perf_counter
        self.start = self.clock()
        self._before = {f for f in self.files if os.path.exists(f)}  # not done by this build
        #: the work found done at the start: not counted in the measured throughput
        self._done_before = sum(w for f, w in zip(self.files, self.weights) if f in self._before)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last: tuple[int, float] | None = None

    def poll(self) -> str | None:
        """The progress line now, or None when nothing changed since the last one."""
        done = [os.path.exists(f) for f in self.files]
        count = sum(done)
        work = sum(w for w, d in zip(self.weights, done) if d)
        fresh = sum(w for f, w, d in zip(self.files, self.weights, done) if d and f not in self._before)
        if self._last == (count, work) and count < len(self.files):
            return None
        self._last = (count, work)
        elapsed = self.clock() - self.start
        # throughput from the work this build did
        left = time_left(elapsed, fresh, self.total - self._done_before)
        fraction = work / self.total if self.total else count / max(len(self.files), 1)
        return progress_line(self.label, count, len(self.files), elapsed, fraction, left)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            line = self.poll()
            if line:
                self.stream.write(line + "\n")
                self.stream.flush()
            if self._last is not None and self._last[0] >= len(self.files):
                return

    def start_thread(self) -> FileProgress:
        """Poll every ``interval`` seconds in a daemon thread until every file exists or
        :meth:`stop`."""
        self._thread = threading.Thread(target=self._loop, name="duelbench-progress", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """End the polling thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
