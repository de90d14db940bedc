"""The verdict changelog: every verdict that changed since the blessed version, with the reason."""

from __future__ import annotations

import csv

from duelbench.report.changelog import BLESSED_COLUMNS, bless, changelog_rows, current_rows, main, write_changelog


def _row(**kw):
    base = {"paper": "p", "claim_id": "c", "kind": "published", "item": "F", "statistic": "s", "estimator": "mean_ratio",
            "region": "< 1.000", "estimate": "0.9", "ci_low": "0.8", "ci_high": "1.0", "outcome_adjusted": "pass"}
    return {**base, **kw}


def test_reasons_name_what_changed():
    blessed = [_row(claim_id="a"), _row(claim_id="b"), _row(claim_id="gone"), _row(claim_id="same")]
    now = [_row(claim_id="a", region="< 0.8000", outcome_adjusted="fail"), _row(claim_id="b", kind="theory"),
           _row(claim_id="new"), _row(claim_id="same", estimate="0.95")]
    rows = {r["claim_id"]: r for r in changelog_rows(blessed, now)}
    assert set(rows) == {"a", "b", "gone", "new"}  # "same": verdict and kind unchanged
    assert "region < 1.000 → < 0.8000" in rows["a"]["reason"] and rows["a"]["after"].startswith("fail")
    assert "kind published → theory" in rows["b"]["reason"]
    assert rows["gone"]["reason"] == "claim removed from the registry" and rows["new"]["after"].startswith("pass")


def _checks(folder, fidelity, outcome="pass"):
    (folder / "p").mkdir(parents=True)
    with open(folder / "p" / "checks.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=[*BLESSED_COLUMNS[2:], "outcome", "fidelity"])
        w.writeheader()
        w.writerow({**{k: v for k, v in _row(outcome_adjusted=outcome).items() if k != "paper"}, "outcome": outcome,
                    "fidelity": fidelity})


def test_bless_then_compare(tmp_path, capsys):
    _checks(tmp_path / "figs", "paper")
    assert bless(str(tmp_path / "figs"), "9.9", str(tmp_path / "blessed.csv")) == 1
    (tmp_path / "figs" / "p" / "checks.csv").write_text(
        (tmp_path / "figs" / "p" / "checks.csv").read_text().replace(",pass,", ",fail,"))
    rows = write_changelog(str(tmp_path / "figs"), str(tmp_path / "c.csv"), str(tmp_path / "c.md"),
                           str(tmp_path / "blessed.csv"))
    assert len(rows) == 1 and "since version 9.9" in (tmp_path / "c.md").read_text()
    assert (tmp_path / "c.csv.json").is_file() and (tmp_path / "c.md.json").is_file()
    assert current_rows(str(tmp_path / "figs"))[0]["outcome_adjusted"] == "fail"
    assert main(["--figures", str(tmp_path / "none")]) == 2
    assert "no " in capsys.readouterr().err


def test_a_reduced_fidelity_build_compares_nothing(tmp_path):
    _checks(tmp_path / "figs", "quick", outcome="fail")
    with open(tmp_path / "blessed.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(BLESSED_COLUMNS))
        w.writeheader()
        w.writerow({"version": "1", **_row()})
    rows = write_changelog(str(tmp_path / "figs"), str(tmp_path / "c.csv"), str(tmp_path / "c.md"),
                           str(tmp_path / "blessed.csv"))
    assert rows == [] and "fidelity `quick`" in (tmp_path / "c.md").read_text()
