"""Plug-in files on DUELBENCH_PLUGIN_PATH as the command line meets them: a broken file is reported
in one line and skipped, and a plug-in that breaks the calling convention is named with the fix.

Each case runs ``duelbench`` in a child process (the registry discovers plug-ins once per process)
on one folder holding a working plug-in and the broken ones.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

POLICY = textwrap.dedent('''
    from duelbench.algorithms.registry import AlgorithmSpec


    class Policy:
        def __init__(self, K, horizon, rng{init_params}):
            self.K = K

        def select(self, t):
            return {pair}

        def update(self, i, j, i_won, t):
            pass


    ALGORITHM = AlgorithmSpec(name="{name}", title="{name}", reference="test", defaults={{"gamma": 2.0}},
                              policy=Policy)
''')

PLUGINS = {
    "good.py": POLICY.format(name="toy_good", init_params=", gamma", pair="0, 1"),
    "bad_select.py": POLICY.format(name="bad_select", init_params=", gamma", pair="0"),
    "bad_init.py": POLICY.format(name="bad_init", init_params="", pair="0, 1"),
    "broken_syntax.py": "from duelbench.algorithms.registry import AlgorithmSpec\n\ndef f(:\n    pass\n",
    "broken_import.py": "import os\nimport no_such_module_for_duelbench\n",
    "no_algorithm.py": "class Policy:\n    pass\n",
}

#: The line each broken file gets on every command (file, line, error).
BROKEN_LINES = ("broken_syntax.py failed to load (line 3: SyntaxError",
                "broken_import.py failed to load (line 2: ModuleNotFoundError: No module named "
                "'no_such_module_for_duelbench')")


@pytest.fixture(scope="module")
def plugin_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("plugins")
    for name, text in PLUGINS.items():
        (folder / name).write_text(text)
    return folder


def _duelbench(plugin_dir, *argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, DUELBENCH_PLUGIN_PATH=str(plugin_dir))
    return subprocess.run([sys.executable, "-m", "duelbench", *argv], env=env, capture_output=True, text=True,
                          timeout=600)


def _check_skipped(stderr: str) -> list[str]:
    """The stderr lines other than the two broken-file warnings, which must each be there once."""
    lines = stderr.splitlines()
    assert "Traceback" not in stderr, stderr
    for text in BROKEN_LINES:
        assert sum(text in line for line in lines) == 1, stderr
    return [line for line in lines if not any(text in line for text in BROKEN_LINES)]


def test_list_skips_broken_plugins_in_one_line_each(plugin_dir):
    proc = _duelbench(plugin_dir, "list")
    assert proc.returncode == 0, proc.stderr
    rest = _check_skipped(proc.stderr)
    assert rest == [f"duelbench list: note: plug-in {plugin_dir / 'no_algorithm.py'} defines no ALGORITHM (not listed)"]
    assert "toy_good" in proc.stdout and "rucb" in proc.stdout


@pytest.mark.parametrize("algorithm", ["random", "toy_good"])
def test_builtin_and_working_plugins_still_run(plugin_dir, algorithm):
    proc = _duelbench(plugin_dir, "run", algorithm, "cyclic", "-T", "50", "-R", "2")
    assert proc.returncode == 0, proc.stderr
    assert _check_skipped(proc.stderr) == []
    assert proc.stdout.startswith(f"# {algorithm} on cyclic")


@pytest.mark.parametrize("algorithm, message", [
    ("broken_syntax", "algorithm 'broken_syntax' is in the plug-in {dir}/broken_syntax.py, which failed to load "
                      "(line 3: SyntaxError: invalid syntax); fix the file"),
    ("no_algorithm", "plug-in {dir}/no_algorithm.py defines no ALGORITHM: add a module-level "
                     "ALGORITHM = AlgorithmSpec(name='no_algorithm', ...)"),
    ("bad_select", "plug-in {dir}/bad_select.py: Policy.select(t) must return a pair (i, j) of arm indices in 0..K-1"),
    ("bad_init", "plug-in {dir}/bad_init.py: Policy cannot be constructed with the algorithm's parameters "
                 "(got an unexpected keyword argument 'gamma'); declare __init__(self, K, horizon, rng, gamma)"),
])
def test_a_plugin_asked_for_gets_one_line_naming_it_and_the_fix(plugin_dir, algorithm, message):
    proc = _duelbench(plugin_dir, "run", algorithm, "cyclic", "-T", "50", "-R", "2")
    assert proc.returncode == 2, proc.stderr
    rest = _check_skipped(proc.stderr)
    assert len(rest) == 1 and rest[0].startswith("duelbench run: error: "), rest
    assert message.format(dir=plugin_dir) in rest[0]
    assert "unknown algorithm" not in rest[0] and proc.stdout == ""
