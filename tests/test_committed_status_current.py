"""The committed results were produced under the current published-number registry and
configuration: a check added, removed or redeclared in ``data/published/<paper>.yaml`` (its
statistic, estimator, region, published value, gate, item, quote, lines or wording), or a changed setting of the
experiment, makes this fail until the paper's outputs are rebuilt and committed with it. Comments
in the registry do not count. ``replication_status.csv`` must come from the committed checks.csv."""

import csv
import json
from pathlib import Path

import pytest
import yaml

from duelbench.report.checks import CheckResult, load_registry

CHECKOUT = Path(__file__).resolve().parent.parent
FIGURES = CHECKOUT / "figures"
PAPERS = sorted(p.parent.name for p in FIGURES.glob("*/checks.csv"))
#: Settings of how runs and samples are cut into shard jobs: no number depends on them (a run's
#: stream is its own, tests/test_engine_determinism.py::test_runs_do_not_depend_on_shard_layout_or_other_algorithms).
LAYOUT = {"runs_per_shard", "samples_per_shard"}
DECLARED = ("claim_id", "kind", "item", "lines", "quote", "description", "statistic", "estimator", "region", "published",
            "erratum", "gate")


def _rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("paper", PAPERS)
def test_committed_checks_declare_what_the_registry_declares(paper):
    registry = load_registry(CHECKOUT / "data" / "published" / f"{paper}.yaml")
    committed = {r["claim_id"]: r for r in _rows(FIGURES / paper / "checks.csv")}
    declared = {c["id"]: CheckResult(check=c, outcome="", decision=None, evidence="", fidelity="paper").row()
                for c in registry["checks"]}
    assert sorted(committed) == sorted(declared), "checks added to or removed from the registry since the build"
    stale = [f"{cid}.{col}: committed {committed[cid][col]!r}, registry {str(declared[cid][col])!r}"
             for cid in declared for col in DECLARED if committed[cid][col] != str(declared[cid][col])]
    assert not stale, stale


@pytest.mark.parametrize("paper", PAPERS)
def test_committed_checks_were_built_with_the_current_settings(paper):
    import duelbench.config as dbc
    from duelbench.experiments.planning import plan

    with open(CHECKOUT / "config" / "config.yaml") as fh:
        config = dbc.check_config(yaml.safe_load(fh))
    recorded = json.loads((FIGURES / paper / "checks.csv.json").read_text())["content"]["config"]
    current = json.loads(json.dumps(plan(config, paper).step("checks").settings, default=str))
    changed = sorted(k for k in (set(recorded) | set(current)) - LAYOUT if recorded.get(k) != current.get(k))
    assert not changed, f"settings changed since {paper}'s checks were built: {changed}"


def test_status_comes_from_the_committed_checks():
    from duelbench.provenance.sidecar import file_sha256

    inputs = json.loads((FIGURES / "replication_status.csv.json").read_text())["content"]["inputs"]
    used = {Path(i["path"]).parent.name: i["sha256"] for i in inputs}
    assert used == {p: file_sha256(FIGURES / p / "checks.csv") for p in PAPERS}
