"""``python -m duelbench.engine.warmup``: the numba cache filled by worker processes, one
algorithm per task, and bad arguments refused with the registered names."""

from __future__ import annotations

import pytest

from duelbench.engine import warmup


def test_parallel_warmup_compiles_each_named_algorithm_once(capsys):
    assert warmup.main(["--jobs", "2", "random", "sparring"]) == 0
    lines = capsys.readouterr().out.splitlines()
    compiled = sorted(line.split()[1] for line in lines if line.startswith("compiled ") and " in " in line
                      and "algorithms" not in line)
    assert compiled == ["random", "sparring"], lines
    assert lines[-1].startswith("compiled 2 algorithms in ") and "2 process(es)" in lines[-1], lines


def test_python_policies_are_skipped_and_one_job_runs_in_process(capsys, monkeypatch):
    calls = []
    monkeypatch.setattr(warmup, "compile_all", lambda names, verbose=True: calls.append(list(names)) or {})
    assert warmup.compile_parallel(["random"], jobs=4) == {}
    assert warmup.compile_parallel(["random", "rucb"], jobs=1) == {}
    assert calls == [["random"], ["random", "rucb"]]


@pytest.mark.parametrize("argv, message", [(["no_such_algorithm"], "unknown algorithm(s) 'no_such_algorithm'"),
                                           (["--jobs", "0"], "--jobs must be at least 1")])
def test_bad_arguments_are_refused_with_a_clear_message(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        warmup.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    if "unknown" in message:
        assert "rucb" in err  # the registered names are listed
