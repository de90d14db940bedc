"""``duelbench config-check``: configuration files are checked before Snakemake reads them,
with the file, line and column of a YAML problem (Snakemake only says "not valid JSON or YAML")."""

import pytest

from duelbench.config import files as config_check


@pytest.mark.parametrize("text, expect", [
    ("demo:\n  runs: !env RUNS\n", ":2:9: could not determine a constructor for the tag '!env'; YAML tags are not"),
    ("demo:\n\truns: 3\n", ":2:1: found character '\\t' that cannot start any token; indent with spaces"),
    ("demo: [1, 2\n", ":2:1:"),
    ("- 1\n- 2\n", "a configuration file is a mapping of keys, got a list"),
])
def test_yaml_problems_name_file_and_line(tmp_path, capsys, text, expect):
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    assert config_check.main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}" in err and expect in err


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
