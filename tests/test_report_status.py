"""``duelbench status``: the replication-status table from the checks.csv files on disk."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from duelbench.cli import main as cli_main
from duelbench.experiments.reporting import main


def test_committed_status_is_what_the_committed_checks_give(checkout, tmp_path):
    """figures/replication_status.csv is exactly the table of the committed papers' checks.csv."""
    committed = sorted((checkout / "figures").glob("*/checks.csv"))
    assert committed, "no committed paper-fidelity checks.csv"
    for path in committed:
        (tmp_path / path.parent.name).mkdir()
        shutil.copy(path, tmp_path / path.parent.name / "checks.csv")
    assert main(["--figures", str(tmp_path)]) == 0
    out = tmp_path / "replication_status.csv"
    assert out.read_bytes() == (checkout / "figures" / "replication_status.csv").read_bytes()
    assert (tmp_path / "replication_status.csv.json").is_file()


def test_status_through_the_cli_and_its_errors(tmp_path, capsys):
    assert cli_main(["status", "--figures", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert f"no {tmp_path / 'none'}/<paper>/checks.csv found" in err and "--figures" in err
    paper = tmp_path / "somepaper"
    paper.mkdir()
    (paper / "checks.csv").write_text("claim_id,kind,item,outcome,outcome_adjusted\nx,published,Table 1,maybe,pass\n")
    assert main(["--figures", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "checks.csv" in err and "'maybe'" in err
    assert not (tmp_path / "replication_status.csv").exists()  # nothing half-written


def test_status_records_the_checks_fidelity_and_leaves_an_up_to_date_table_alone(checkout, tmp_path, capsys):
    import json

    for path in sorted((checkout / "figures").glob("*/checks.csv")):
        (tmp_path / path.parent.name).mkdir()
        shutil.copy(path, tmp_path / path.parent.name / "checks.csv")
    assert main(["--figures", str(tmp_path)]) == 0
    side = tmp_path / "replication_status.csv.json"
    assert json.loads(side.read_text())["content"]["config"]["fidelity"] == "paper"  # not null
    before = (side.read_bytes(), side.stat().st_mtime_ns)
    capsys.readouterr()
    assert main(["--figures", str(tmp_path)]) == 0
    assert "up to date" in capsys.readouterr().err
    assert (side.read_bytes(), side.stat().st_mtime_ns) == before  # provenance not rewritten
    # a rebuilt checks.csv whose statuses are the same (here: a blank line more) gets a new sidecar
    first = sorted(tmp_path.glob("*/checks.csv"))[0]
    first.write_text(first.read_text() + "\n")
    table = (tmp_path / "replication_status.csv").read_bytes()
    assert main(["--figures", str(tmp_path)]) == 0
    assert "up to date" not in capsys.readouterr().err
    assert (tmp_path / "replication_status.csv").read_bytes() == table
    recorded = {Path(i["path"]).parent.name: i["sha256"] for i in json.loads(side.read_text())["content"]["inputs"]}
    assert recorded[first.parent.name] == hashlib.sha256(first.read_bytes()).hexdigest()


def test_status_refuses_checks_of_mixed_fidelities(checkout, tmp_path, capsys):
    papers = sorted((checkout / "figures").glob("*/checks.csv"))
    for n, path in enumerate(papers):
        (tmp_path / path.parent.name).mkdir()
        text = path.read_text()
        if n == 0:
            text = text.replace(",paper,", ",quick,")
        (tmp_path / path.parent.name / "checks.csv").write_text(text)
    assert main(["--figures", str(tmp_path)]) == 2
    assert "different fidelities" in capsys.readouterr().err


def test_every_paper_item_has_a_row_checked_or_not():
    from duelbench.experiments.contract import Item, paper_items
    from duelbench.report.status import unchecked_rows

    items = paper_items([Item("f1", "figure", "Figure 1 (x)", "c", ()), Item("f2", "figure", "Figure 2: y", "c", ()),
                         Item("own", "table", "Suite table", "c", ())], {"f1": ("Figure 1",), "f2": ()})
    rows = unchecked_rows("p", items, checked={"Figure 1"})
    assert [(r["item"], r["status"]) for r in rows] == [("Figure 2", "shown_not_checked")]
    assert "data/published/p.yaml" in rows[0]["note"]
    import pytest

    from duelbench.config import ConfigError

    with pytest.raises(ConfigError, match="not declared"):
        paper_items(items, {"figure9": ()})


def test_committed_report_is_what_the_committed_outputs_give(checkout, tmp_path, monkeypatch):
    """figures/REPORT.md is exactly the report of the committed papers (``duelbench status --report``):
    a paper's checks.csv rebuilt without its report fails here."""
    from duelbench.config.files import checkout_config
    from duelbench.experiments.reporting import write_report as write_for_config

    monkeypatch.chdir(checkout)
    out = tmp_path / "REPORT.md"
    inputs = write_for_config(checkout_config(fidelity="paper"), str(out), "figures/replication_status.csv",
                              built_only=True)
    assert sorted(str(p) for p in (checkout / "figures").glob("*/checks.csv")) == sorted(
        str(checkout / p) for p in inputs if p.endswith("checks.csv"))
    assert out.read_text(encoding="utf-8") == (checkout / "figures" / "REPORT.md").read_text(encoding="utf-8")


def test_status_report_writes_only_the_workflow_report(checkout, tmp_path, capsys):
    for path in sorted((checkout / "figures").glob("*/checks.csv")):
        (tmp_path / path.parent.name).mkdir()
        shutil.copy(path, tmp_path / path.parent.name / "checks.csv")
    assert main(["--figures", str(tmp_path), "--report"]) == 2
    assert "--figures must be 'figures'" in capsys.readouterr().err
    assert not (tmp_path / "REPORT.md").exists()


def test_only_published_claims_move_the_committed_status(checkout, tmp_path):
    """The committed status table is the same with every theory, erratum and shown row removed."""
    import csv

    for path in sorted((checkout / "figures").glob("*/checks.csv")):
        (tmp_path / path.parent.name).mkdir()
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            rows = [r for r in reader if r["kind"] == "published"]
            columns = reader.fieldnames
        with open(tmp_path / path.parent.name / "checks.csv", "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=columns)
            w.writeheader()
            w.writerows(rows)
    assert main(["--figures", str(tmp_path)]) == 0
    assert (tmp_path / "replication_status.csv").read_bytes() == \
        (checkout / "figures" / "replication_status.csv").read_bytes()


def _workflow_figures_copy(checkout, root):
    """``root/figures`` as the workflow's figures folder (each paper's files linked, the
    top-level outputs copied) and ``root/data`` linked, for running ``duelbench status --report``
    in ``root`` without touching the checkout."""
    figures = root / "figures"
    figures.mkdir()
    for entry in (checkout / "figures").iterdir():
        if entry.is_dir():
            (figures / entry.name).mkdir()
            for f in entry.rglob("*"):
                if f.is_file():
                    (figures / entry.name / f.relative_to(entry)).parent.mkdir(parents=True, exist_ok=True)
                    (figures / entry.name / f.relative_to(entry)).symlink_to(f)
        else:
            shutil.copy2(entry, figures / entry.name)
    (root / "data").symlink_to(checkout / "data")
    return figures


def test_status_report_refuses_to_drop_a_paper_whose_checks_are_missing(checkout, tmp_path, capsys, monkeypatch):
    figures = _workflow_figures_copy(checkout, tmp_path)
    monkeypatch.chdir(tmp_path)
    (figures / "wu2016" / "checks.csv").unlink()
    before = {name: (figures / name).read_bytes() for name in ("REPORT.md", "REPORT.md.json",
                                                               "replication_status.csv", "replication_status.csv.json")}
    assert main(["--report"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "figures/wu2016/checks.csv" in err[0] and "--allow-missing" in err[0]
    assert {name: (figures / name).read_bytes() for name in before} == before  # nothing rewritten

    assert main(["--report", "--allow-missing"]) == 0
    err = capsys.readouterr().err
    assert "warning" in err and "figures/wu2016/checks.csv" in err
    report = (figures / "REPORT.md").read_text(encoding="utf-8")
    assert "\n## wu2016: " not in report and "\n## zoghi2015: " in report
