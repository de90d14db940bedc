"""Test files handed to the xdist workers heaviest first.

``make test`` runs the files on two workers (``--dist loadfile``): a worker that finishes its
files takes the next one in order. By default pytest-xdist orders the files by their number of
tests, which puts the few-test, minutes-long workflow builds last, where one of them can keep one
worker busy while the other has nothing left. Ordering by measured seconds instead, heaviest
first, is the longest-processing-time rule: the run ends on short files.

The seconds per file (setup, call and teardown of its tests, summed) are recorded in
:data:`DURATIONS` by ``pytest --store-durations`` (run it after adding or reshaping a slow
test); a file it does not list counts as the median file. The order changes only which worker
runs a file and when, never what a test computes.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path

DURATIONS = Path(__file__).resolve().parent / "data" / "file_durations.json"


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def measured() -> dict[str, float]:
    if not DURATIONS.is_file():
        return {}
    return json.loads(DURATIONS.read_text(encoding="utf-8"))


def heaviest_first(items: list) -> None:
    """Sort ``items`` in place by their file's measured seconds, descending (stable: a file's
    tests stay together and in their order)."""
    seconds = measured()
    default = statistics.median(seconds.values()) if seconds else 0.0
    items.sort(key=lambda item: -seconds.get(file_of(item.nodeid), default))


class DurationRecorder:
    """Sums each file's test phases as the reports arrive (on the xdist controller) and writes
    :data:`DURATIONS` at the end of a session without failures."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.failed = False

    def pytest_runtest_logreport(self, report) -> None:
        self.seconds[file_of(report.nodeid)] += report.duration
        self.failed |= report.failed

    def pytest_sessionfinish(self, session, exitstatus) -> None:
        if self.failed or exitstatus != 0 or not self.seconds:
            return
        table = {name: round(s, 1) for name, s in sorted(self.seconds.items())}
        tmp = DURATIONS.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
        tmp.replace(DURATIONS)
