"""The Experiment base class and the step harness (duelbench.experiments.experiment, contract)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from duelbench.config import ConfigError, effective_config
from duelbench.experiments.contract import Files, Item, Step, StepContext, run_harnessed
from duelbench.experiments.demo import EXPERIMENT as demo
from duelbench.experiments.experiment import Experiment


CHECKOUT = Path(__file__).resolve().parent.parent


@pytest.fixture()
def config():
    return yaml.safe_load((CHECKOUT / "config" / "config.yaml").read_text())


class Toy(Experiment):
    name = "demo"  # reuses the demo's config section
    output_files = {"table": "toy.csv"}
    paper_items = {"table1": ("Table 1",)}

    def check(self, s):
        self.require(s, "seed", "runs")

    def steps(self, s, out, config):
        return [Step("table", self.write, {"table": out["table"]}, settings={"seed": s["seed"]})]

    def items(self, s, out):
        return [Item("table1", "table", "Table 1 (toy)", "a toy table", (out["table"],)),
                Item("extra", "table", "A table of the suite's own", "not the paper's", (out["table"],))]

    @staticmethod
    def write(ctx):
        print("writing the toy table")
        with open(ctx.output.table, "w", encoding="utf-8") as fh:
            fh.write("a,b\n1,2\n")
        return {"rows": 1}


def test_the_plan_is_assembled_from_the_declarations(config):
    p = Toy().plan(effective_config(config, "smoke"))
    p.check()
    assert p.name == "demo" and [s.name for s in p.steps] == ["table"] and callable(p.steps[0].function)
    assert p.steps[0].outputs == {"table": "results/smoke/figures/demo/toy.csv"}
    assert [(i.id, i.in_paper, i.judged_by) for i in p.items] == [("table1", True, ("Table 1",)), ("extra", False, ())]
    assert p.shards == [] and p.samples == [] and p.kinds == ("copeland",) and p.curves is None


def _chained(order, timed=False):
    """A plan of two steps, ``b`` reading ``a``'s output, declared in ``order``."""
    from duelbench.experiments.contract import Plan

    a = Step("a", Toy.write, {"csv": "a.csv"}, host_dependent=timed)
    b = Step("b", Toy.write, {"csv": "b.csv"}, inputs={"table": "a.csv"})
    return Plan(name="toy", settings={}, steps=[{"a": a, "b": b}[n] for n in order])


def test_steps_run_in_declared_order_so_a_step_reads_only_what_earlier_steps_wrote():
    _chained("ab").check()
    with pytest.raises(ConfigError, match=r"toy: step b reads a\.csv, written by the step a declared after it"):
        _chained("ba").check()


def test_no_step_reads_the_output_of_a_host_dependent_step():
    with pytest.raises(ConfigError, match=r"reads a\.csv of the host-dependent step a \(a timing is never an input\)"):
        _chained("ab", timed=True).check()
    p = _chained("ab")
    assert p.results() == p.outputs() == ["a.csv", "b.csv"]


def test_the_workflow_runs_a_plan_in_one_job_and_a_timing_alone(tmp_path):
    """One process per plan (the interpreter, imports and planning paid once): Chen et al.'s
    steps are one job; their host-dependent time per round is a job of its own, built by the
    target chen2020_timing and not by chen2020 (hence not by all)."""
    import subprocess
    import sys

    def rules(target):
        proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--forceall", "--quiet", "rules",
                               "--config", "archive=off", f"results={tmp_path}", "--", target],
                              cwd=CHECKOUT, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return {line.split()[0] for line in (proc.stdout + proc.stderr).splitlines() if line.split()[1:2]
                and line.split()[1].isdigit()}

    paper = rules("chen2020")
    assert "chen2020_steps" in paper and "chen2020_runtime" not in paper
    assert {r for r in paper if r.startswith("chen2020_")} == {"chen2020_steps", "chen2020_shard_list"}
    assert "chen2020_runtime" in rules("chen2020_timing")


def test_a_missing_key_names_the_section_and_the_schema(config):
    del config["demo"]["runs"]
    for fidelity in config["fidelities"].values():
        (fidelity.get("overrides") or {}).get("demo", {}).pop("runs", None)
    cfg = effective_config(config, "smoke")
    with pytest.raises(ConfigError, match=r"demo\.runs: missing \(see workflow/schemas/demo\.schema\.yaml\)"):
        Toy().plan(cfg)


def test_the_harness_writes_the_log_and_one_sidecar_per_declared_output(tmp_path):
    out, log = tmp_path / "toy.csv", tmp_path / "logs" / "table.log"
    (tmp_path / "in.csv").write_text("x\n1\n")
    toy = Toy()
    step = Step("table", toy.write, {"table": str(out)}, inputs={"data": str(tmp_path / "in.csv")},
                settings={"seed": 7, "runs": 2})
    plan = type("P", (), {"name": "toy"})()
    ctx = StepContext(plan=plan, config={}, step=step, input=Files(data=str(tmp_path / "in.csv")),
                      output=Files(table=str(out), table_meta=str(out) + ".json"), log=str(log))
    run_harnessed(step.function, ctx)
    assert "writing the toy table" in log.read_text()
    sidecar = json.loads((tmp_path / "toy.csv.json").read_text())["content"]
    assert sidecar["extra"] == {"experiment": "toy", "step": "table", "rows": 1}
    assert sidecar["seeds"] == {"seed": 7} and sidecar["config"] == {"seed": 7, "runs": 2}
    assert [i["path"] for i in sidecar["inputs"]] == [str(tmp_path / "in.csv")]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv", "logs", "toy.csv", "toy.csv.json"]


def test_a_failing_step_leaves_its_error_in_the_log_and_writes_no_sidecar(tmp_path):
    def broken(ctx):
        raise ValueError("no data")

    out, log = tmp_path / "x.csv", tmp_path / "x.log"
    step = Step("x", broken, {"csv": str(out)})
    ctx = StepContext(plan=type("P", (), {"name": "toy"})(), config={}, step=step, input=Files(),
                      output=Files(csv=str(out)), log=str(log))
    with pytest.raises(ValueError, match="no data"):
        run_harnessed(broken, ctx)
    assert "error: ValueError: no data" in log.read_text() and not (tmp_path / "x.csv.json").exists()


def test_the_demo_declares_its_shards_steps_and_item(config):
    p = demo.plan(effective_config(config, "smoke"))
    assert [s.name for s in p.steps] == ["aggregate", "plot"]
    assert all(callable(s.function) for s in p.steps)
    assert len(p.shards) == 2 * 4 * 2 and p.kinds == ("copeland", "condorcet")
    assert p.curves == ("results/smoke/figures/demo/regret.csv", "copeland")
    assert [i.id for i in p.items] == ["regret"]
