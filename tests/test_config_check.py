"""``duelbench config-check``: configuration files are checked before Snakemake reads them,
with the file, line and column of a YAML problem (Snakemake only says "not valid JSON or YAML")."""

import pytest

from duelbench.config import experiment_settings
from duelbench.config import files as config_check
from duelbench.experiments.demo import EXPERIMENT as demo


@pytest.mark.parametrize("text, expect", [
    ("demo:\n  runs: !env RUNS\n", ":2:9: could not determine a constructor for the tag '!env'; YAML tags are not"),
    ("demo:\n\truns: 3\n", ":2:1: found character '\\t' that cannot start any token; indent with spaces"),
    ("demo: [1, 2\n", ":2:1:"),
    ("- 1\n- 2\n", ": a configuration file is a mapping of keys, got a list"),
    # a key given twice, which Snakemake's reader accepts (the later value winning silently)
    ("demo:\n  runs: 3\n  horizon: 10\n  runs: 4\n", ":4:3: duplicate key 'runs' (first on line 2); keep one"),
    ("demo: {runs: 3}\ndemo: {horizon: 10}\n", ":2:1: duplicate key 'demo' (first on line 1); keep one"),
    # an empty file, which Snakemake refuses
    ("", ": the configuration file is empty"),
    ("# nothing but a comment\n", ": the configuration file is empty"),
    # schema and semantic problems name the file that set the key
    ("demo:\n  runs: -3\n", ": demo.runs: -3 is less than the minimum of 1"),
    ("demo:\n  algorithms: [rucb, nonexistent]\n", ": demo.algorithms[1]: unknown algorithm 'nonexistent'"),
    ("fidelity: fast\n", ": fidelity: 'fast' is not defined under 'fidelities'"),
    ("demo:\n  typo: 1\n", ": demo.typo: unknown key"),
])
def test_problems_name_file_and_line(tmp_path, capsys, text, expect):
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    assert config_check.main([str(bad)]) == 2
    assert f"{bad}{expect}" in capsys.readouterr().err


def test_schema_problems_after_merging(tmp_path, capsys):
    f = tmp_path / "c.yaml"
    f.write_text("demo:\n  runs: -3\n")
    assert config_check.main(["--snakemake-args", f"-n --configfile {f} --cores 2"]) == 2
    assert "demo.runs: -3 is less than the minimum of 1" in capsys.readouterr().err


def test_the_profiles_configuration_files_pass(capsys):
    for profile in ("quick", "smoke"):
        assert config_check.main([str(config_check.CHECKOUT / "config" / "profiles" / profile / "fidelity.yaml")]) == 0
    assert config_check.configfiles_in(["-n", "--configfile", "a.yaml", "b.yaml", "--cores", "2",
                                        "--configfiles=c.yaml"]) == ["a.yaml", "b.yaml", "c.yaml"]


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("fidelity, kept", [("smoke", {"runs_per_shard": 2}), ("quick", {"runs_per_shard": 10})])
def test_a_users_value_wins_over_the_fidelity_override(tmp_path, capsys, fidelity, kept):
    mine = _write(tmp_path, "my.yaml", f"fidelity: {fidelity}\ndemo: {{horizon: 500, runs: 6}}\n")
    eff = config_check.check_files([mine])
    demo = experiment_settings(eff, "demo")
    assert (demo["horizon"], demo["runs"]) == (500, 6)
    assert {k: demo[k] for k in kept} == kept  # keys the file does not set keep the fidelity's value
    assert config_check.main([str(mine)]) == 0
    err = capsys.readouterr().err
    override = {"smoke": 2000, "quick": 10000}[fidelity]
    assert f"demo.horizon = 500 from {mine} replaces the {fidelity} override {override}" in err
    assert f"demo.runs = 6 from {mine} replaces the {fidelity} override" in err


def test_the_users_values_reach_the_shard_plan(tmp_path):
    mine = _write(tmp_path, "my.yaml", "fidelity: smoke\ndemo: {horizon: 500, runs: 6}\n")
    paths = [s.path for s in demo.shard_specs(config_check.check_files([mine]))]
    assert paths and all("/T500/" in p for p in paths)
    assert sum(p.endswith("runs-4-6.npz") for p in paths) == len(paths) // 3


def test_a_later_file_names_the_source(tmp_path, capsys):
    first = _write(tmp_path, "a.yaml", "fidelity: smoke\ndemo: {horizon: 500}\n")
    second = _write(tmp_path, "b.yaml", "demo: {horizon: 700}\n")
    assert config_check.main([str(first), str(second)]) == 0
    assert f"demo.horizon = 700 from {second} replaces the smoke override 2000" in capsys.readouterr().err
