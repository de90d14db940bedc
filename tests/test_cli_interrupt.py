"""Ctrl-C during a simulation: one line, exit status 130, nothing written.

Each test starts a long simulation in a child process, waits until the child reports two
finished runs, sends SIGINT half a run later (so the signal lands in the compiled loop) and
checks how the child ends.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

CHECKOUT = Path(__file__).resolve().parent.parent
P3 = np.array([[0.5, 0.6, 0.7], [0.4, 0.5, 0.8], [0.3, 0.2, 0.5]])
#: Enough steps per run that a signal lands in the compiled loop, enough runs never to finish.
HORIZON, RUNS = 2_000_000, 100_000
#: Generous bound on waiting for the child; reaching it fails the test instead of hanging it.
PATIENCE = 600


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a child of a background shell inherits SIG_IGN


def _start(argv: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *argv], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ), preexec_fn=_default_sigint)


def _wait_for_line(proc: subprocess.Popen, pattern: str) -> list[str]:
    """Lines of the child's stderr up to the first matching ``pattern`` (fails on EOF or no line)."""
    seen = []
    while True:
        ready, _, _ = select.select([proc.stderr], [], [], PATIENCE)
        if not ready:
            proc.kill()
            pytest.fail(f"no line matching {pattern!r} on stderr; got {seen}")
        line = proc.stderr.readline()
        if not line:
            pytest.fail(f"the child ended (status {proc.wait()}) before printing {pattern!r}; got {seen}")
        seen.append(line)
        if re.search(pattern, line):
            return seen


def _interrupt(proc: subprocess.Popen, progress: str) -> tuple[int, list[str], str]:
    """SIGINT in the middle of a run (half the time between two ``progress`` lines after the
    second one); the exit status, the stderr lines other than progress and stdout."""
    _wait_for_line(proc, progress)
    start = time.monotonic()
    _wait_for_line(proc, progress)
    time.sleep((time.monotonic() - start) / 2)
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=PATIENCE)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the child did not end after SIGINT")
    rest = [line for line in err.splitlines() if not re.search(progress, line)]
    return proc.returncode, rest, out


def test_ctrl_c_during_run_exits_130_with_one_line_and_no_output(tmp_path):
    matrix = tmp_path / "P.npy"
    np.save(matrix, P3)
    out = tmp_path / "res.npz"
    proc = _start(["-m", "duelbench", "run", "rucb", str(matrix), "-T", str(HORIZON), "-R", str(RUNS),
                   "-o", str(out)], tmp_path)
    status, lines, stdout = _interrupt(proc, rf"run \d+/{RUNS} done")
    assert status == 130, lines
    assert len(lines) == 1 and "interrupted" in lines[0] and "Traceback" not in lines[0], lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["P.npy"]  # no result, no temporary file
    assert stdout == ""


def test_ctrl_c_during_a_workflow_shard_job_exits_130_and_writes_no_shard(tmp_path):
    job = {"fidelity": "adhoc", "dataset": "cyclic", "algorithm": "rucb", "params": {"alpha": 0.51},
           "param_hash": "", "horizon": HORIZON, "run_start": 0, "run_stop": RUNS, "seed": 0}
    out = tmp_path / "shard" / "runs-0-100000.npz"
    proc = _start([str(CHECKOUT / "workflow" / "scripts" / "job.py"), "simulate", str(out), json.dumps(job)],
                  tmp_path)
    status, lines, _ = _interrupt(proc, rf"run \d+/{RUNS} \(")
    assert status == 130, lines
    assert len(lines) == 1 and "interrupted" in lines[0], lines
    assert not out.parent.exists() or not any(out.parent.iterdir())
