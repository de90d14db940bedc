"""Workflow configuration: schema, fidelities, semantic checks, shard planning."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import duelbench.config as dbc
import duelbench.engine.jobs as dbj
from duelbench.experiments.demo import EXPERIMENT as demo

CHECKOUT = Path(__file__).resolve().parent.parent
SCHEMA = str(CHECKOUT / "workflow" / "schemas" / "config.schema.yaml")
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")


@pytest.fixture()
def config():
    with open(CHECKOUT / "config" / "config.yaml") as f:
        return yaml.safe_load(f)


def snakemake_env():
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "SNAKEMAKE_PROFILE", "NUMBA_CACHE_DIR", "DUELBENCH_DATA_DIR")}
    return env


# --- schema ------------------------------------------------------------------------------------
def test_default_config_is_valid(config):
    assert dbc.schema.schema_errors(config, SCHEMA) == []
    eff = dbc.validate_config(config, SCHEMA)
    assert eff["fidelity"] == "paper"
    assert eff["demo"]["horizon"] == 10**6 and eff["demo"]["runs"] == 100


def _walk_schema(node, path="#"):
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from _walk_schema(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk_schema(v, f"{path}/{i}")


def test_schema_documents_every_key():
    with open(SCHEMA) as f:
        schema = yaml.safe_load(f)
    undocumented = []
    for path, node in _walk_schema(schema):
        if path.endswith("/properties"):
            for key, sub in node.items():
                if "description" not in sub and not ("$ref" in sub and len(sub) == 1):
                    undocumented.append(f"{path}/{key}")
    assert undocumented == []


@pytest.mark.parametrize(
    "patch, message",
    [
        ({"demo": {"runs": -3}}, "demo.runs: -3 is less than the minimum of 1"),
        ({"demo": {"runs_per_shard": 0}}, "demo.runs_per_shard: 0 is less than the minimum of 1"),
        ({"demo": {"horizon": 1.5}}, "demo.horizon: 1.5 is not of type 'integer'"),
        ({"demo": {"seed": -1}}, "demo.seed: -1 is less than the minimum of 0"),
        ({"demo": {"datasets": []}}, "demo.datasets: [] should be non-empty"),
        ({"demo": {"kinds": ["borda"]}}, "demo.kinds[0]: 'borda' is not one of"),
        ({"demo": {"algorithms": [{"name": "rucb", "parms": {}}]}},
         "demo.algorithms[0].parms: unknown key (allowed: label, name, params); did you mean 'params'?"),
        ({"demo": {"algorithms": [{"name": "rucb", "params": {"alpha": "x"}}]}},
         "demo.algorithms[0].params.alpha: 'x' is not of type 'number'"),
        ({"demo": {"typo": 1}}, "demo.typo: unknown key (allowed: algorithms, datasets, description, horizon, kinds"),
        ({"seed": 3}, "seed: unknown top-level section (known: fidelity, results, data, archive, fidelities, demo, "),
        ({"zoghi2051": {"seed": 0}}, "zoghi2051: unknown top-level section (known: "),
        ({"zoghi2051": {"seed": 0}}, "did you mean 'zoghi2015'?"),
        ({"zoghi2015": {"figure1": {"horizn": 10}}},
         "zoghi2015.figure1.horizn: unknown key (allowed: algorithms, dataset, horizon, runs"),
        ({"komiyama2016": {"robustness": {"run": 3}}}, "did you mean 'runs'?"),
        ({"fidelities": {"quick": {"figure": "x"}}},
         "fidelities.quick.figure: unknown key (allowed: description, figures, overrides); did you mean 'figures'?"),
    ],
)
def test_schema_rejects_with_key_path(config, patch, message):
    bad = dbc.deep_merge(config, patch)
    with pytest.raises(dbc.ConfigError) as exc:
        dbc.validate_config(bad, SCHEMA)
    assert message in str(exc.value)


def test_a_wrong_key_is_reported_in_a_few_lines(config):
    bad = dbc.deep_merge(config, {"zoghi2015": {"figure1": {"horizn": 10}}})
    with pytest.raises(dbc.ConfigError) as exc:
        dbc.validate_config(bad, SCHEMA)
    assert len(str(exc.value).splitlines()) <= 3, str(exc.value)


def test_unknown_algorithm_and_bad_parameter(config):
    bad = dbc.deep_merge(config, {"demo": {"algorithms": ["rucb", "no_such_algorithm"]}})
    with pytest.raises(dbc.ConfigError, match=r"demo\.algorithms\[1\]: unknown algorithm 'no_such_algorithm'; registered"):
        dbc.validate_config(bad, SCHEMA)
    bad = dbc.deep_merge(config, {"demo": {"algorithms": [{"name": "rucb", "params": {"no_such_param": 1.0}}]}})
    with pytest.raises(dbc.ConfigError, match=r"demo\.algorithms\[0\]: invalid parameters for 'rucb'"):
        dbc.validate_config(bad, SCHEMA)
    bad = dbc.deep_merge(config, {"demo": {"algorithms": ["rucb", {"name": "rucb"}]}})
    with pytest.raises(dbc.ConfigError, match="listed twice"):
        dbc.validate_config(bad, SCHEMA)


def test_unknown_dataset(config):
    bad = dbc.deep_merge(config, {"demo": {"datasets": ["arxiv", "no_such_data"]}})
    with pytest.raises(dbc.ConfigError, match=r"demo\.datasets\[1\]: unknown dataset 'no_such_data'"):
        dbc.validate_config(bad, SCHEMA)


def test_unknown_fidelity(config):
    bad = dict(config, fidelity="fast")
    with pytest.raises(dbc.ConfigError, match="fidelity: 'fast' is not defined under 'fidelities'"):
        dbc.validate_config(bad, SCHEMA)


def test_invalid_override_is_reported_with_fidelity(config):
    bad = copy.deepcopy(config)
    bad["fidelity"] = "quick"
    bad["fidelities"]["quick"]["overrides"]["demo"]["runs"] = 0
    with pytest.raises(dbc.ConfigError, match=r"after applying fidelities\.quick\.overrides:\n  demo\.runs"):
        dbc.validate_config(bad, SCHEMA)


# --- fidelities --------------------------------------------------------------------------------
def test_fidelity_overrides(config):
    quick = demo.settings(dict(config, fidelity="quick"))
    assert (quick["horizon"], quick["runs"]) == (10**4, 20)
    smoke = demo.settings(config, fidelity="smoke")
    assert (smoke["horizon"], smoke["runs"]) == (2000, 4)
    paper = demo.settings(config)
    assert (paper["horizon"], paper["runs"], paper["runs_per_shard"], paper["seed"]) == (10**6, 100, 10, 0)
    assert paper["datasets"] == quick["datasets"] == ["arxiv", "sushi"]


def test_effective_config_is_idempotent(config):
    cfg = dict(config, fidelity="quick")
    once = dbc.effective_config(cfg)
    assert dbc.effective_config(once) == once
    assert [s.path for s in demo.shard_specs(once)] == [s.path for s in demo.shard_specs(cfg)]


def test_deep_merge_does_not_mutate():
    base = {"a": {"b": 1, "c": [1]}, "d": 2}
    out = dbc.deep_merge(base, {"a": {"c": [2]}, "e": 3})
    assert out == {"a": {"b": 1, "c": [2]}, "d": 2, "e": 3}
    assert base == {"a": {"b": 1, "c": [1]}, "d": 2}


def test_figures_folders(config):
    assert demo.outputs(config)["csv"] == "figures/demo/regret.csv"
    assert demo.outputs(config, "quick")["pdf"] == "results/quick/figures/demo/regret.pdf"
    assert dbc.figures_dir(config, "demo", "smoke") == "results/smoke/figures/demo"


# --- shards ------------------------------------------------------------------------------------
def test_demo_shards_paper_fidelity(config):
    specs = demo.shard_specs(config)
    assert len(specs) == 2 * 4 * 10
    paths = [s.path for s in specs]
    assert len(set(paths)) == len(paths)
    from duelbench.algorithms.registry import param_hash

    h = param_hash("rucb", {})
    assert f"results/paper/arxiv/rucb-{h}/T1000000/runs-0-10.npz" in paths
    assert f"results/paper/sushi/rucb-{h}/T1000000/runs-90-100.npz" in paths
    assert {s.seed for s in specs} == {0}


def test_fidelity_is_part_of_every_shard_path(config):
    paper = set([s.path for s in demo.shard_specs(config)])
    quick = set([s.path for s in demo.shard_specs(config, "quick")])
    smoke = set([s.path for s in demo.shard_specs(config, "smoke")])
    assert not (paper & quick) and not (paper & smoke) and not (quick & smoke)
    assert all(p.startswith("results/quick/") for p in quick)


def test_plan_shards_partial_last_shard():
    specs = dbj.plan_shards(fidelity="f", dataset="arxiv", algorithm="random", params={}, horizon=100, runs=25,
                            runs_per_shard=10, seed=1, root="res")
    assert [(s.run_start, s.run_stop) for s in specs] == [(0, 10), (10, 20), (20, 25)]
    assert specs[0].path.startswith("res/f/arxiv/random-")
    assert dbj.group_shards(reversed(specs)) == {("arxiv", "random", specs[0].param_hash, 100): specs}


def test_shard_plan_shares_shards_and_rejects_seed_conflicts():
    kw = dict(fidelity="f", dataset="arxiv", algorithm="random", params={}, horizon=100, runs=4, runs_per_shard=2)
    plan = dbj.ShardPlan()
    a = plan.add(dbj.plan_shards(seed=0, **kw), owner="paper_a")
    b = plan.add(dbj.plan_shards(seed=0, **kw), owner="paper_b")
    assert a == b and len(plan) == 2
    assert plan.owners(a[0]) == ["paper_a", "paper_b"]
    with pytest.raises(dbc.ConfigError, match="seed 5 by paper_c and with seed 0 by paper_a, paper_b"):
        plan.add(dbj.plan_shards(seed=5, **kw), owner="paper_c")
    with pytest.raises(dbc.ConfigError, match="no configured experiment requests the shard"):
        plan.get("results/f/arxiv/random-0000000000/T1/runs-0-1.npz")


def test_job_params_round_trip(config):
    import json

    spec = demo.shard_specs(config, "smoke")[0]
    p = json.loads(spec.job_params())
    assert p["horizon"] == 2000 and p["run_start"] == 0 and p["run_stop"] == 2 and p["seed"] == 0
    assert p["fidelity"] == "smoke" and p["params"] == spec.params


def test_dataset_inputs_for_mslr():
    assert dbc.dataset_inputs("arxiv") == []
    assert dbc.dataset_inputs("mslr_informational", "d") == ["d/mslr/MSLR_Informational_PMat.npz"]


# --- through snakemake -------------------------------------------------------------------------
def test_snakemake_rejects_bad_config_with_clear_message(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("demo:\n  runs: -1\n  algorithms: [rucb, nonexistent]\n")
    proc = subprocess.run(
        [SNAKEMAKE, "-s", str(CHECKOUT / "Snakefile"), "--directory", str(tmp_path), "-n", "--configfile", str(bad)],
        capture_output=True, text=True, env=snakemake_env(), timeout=300,
    )
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "invalid configuration" in out and "demo.runs: -1 is less than the minimum of 1" in out

    bad.write_text("demo:\n  algorithms: [rucb, nonexistent]\n")
    proc = subprocess.run(
        [SNAKEMAKE, "-s", str(CHECKOUT / "Snakefile"), "--directory", str(tmp_path), "-n", "--configfile", str(bad)],
        capture_output=True, text=True, env=snakemake_env(), timeout=300,
    )
    assert proc.returncode != 0
    assert "demo.algorithms[1]: unknown algorithm 'nonexistent'" in proc.stdout + proc.stderr

    # an unknown section is an error (not silently ignored), and a wrong key inside a paper's
    # section is a few lines naming the key, not a dump of the schema
    for text, expected in [("zoghi2051:\n  seed: 0\n", "zoghi2051: unknown top-level section"),
                           ("zoghi2015:\n  figure1:\n    horizn: 10\n", "zoghi2015.figure1.horizn: unknown key")]:
        bad.write_text(text)
        proc = subprocess.run(
            [SNAKEMAKE, "-s", str(CHECKOUT / "Snakefile"), "--directory", str(tmp_path), "-n", "--configfile", str(bad)],
            capture_output=True, text=True, env=snakemake_env(), timeout=300,
        )
        out = proc.stdout + proc.stderr
        assert proc.returncode != 0 and expected in out, out[-3000:]
        assert len(out.splitlines()) < 30, out


def _dry_run(tmp_path, *args):
    proc = subprocess.run(
        [SNAKEMAKE, "-s", str(CHECKOUT / "Snakefile"), "--directory", str(tmp_path), "-n", "--cores", "1", *args],
        capture_output=True, text=True, env=snakemake_env(), timeout=300,
    )
    return proc.returncode, proc.stdout + proc.stderr


def test_snakemake_plans_the_users_values_over_the_fidelity_override(tmp_path):
    mine = tmp_path / "my.yaml"
    mine.write_text("demo: {horizon: 500, runs: 6}\n")
    rc, out = _dry_run(tmp_path, "demo", "--config", "fidelity=smoke", "--configfile", str(mine))
    assert rc == 0, out[-3000:]
    assert "demo.horizon = 500 from my.yaml replaces the smoke override 2000" in out
    assert "/T500/runs-4-6.npz" in out and "/T2000/" not in out


@pytest.mark.parametrize("text, expect", [
    ("demo:\n  runs: 3\n  runs: 4\n", "{f}:3:3: duplicate key 'runs' (first on line 2)"),
    ("demo:\n  runs: -1\n", "{f}: demo.runs: -1 is less than the minimum of 1"),
])
def test_snakemake_names_the_file_of_a_bad_value(tmp_path, text, expect):
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    rc, out = _dry_run(tmp_path, "demo", "--configfile", str(bad))
    assert rc != 0 and expect.format(f=bad.name) in out, out[-3000:]  # named relative to the working folder
