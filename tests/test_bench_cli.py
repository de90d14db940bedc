"""``duelbench bench``: documented options, one instance per K = 5, 16, 64, 500, a time cap per
case, and instances without their data listed as skipped (not timed, not failed)."""

import json

from duelbench import bench


def test_help_documents_every_option_with_its_default(capsys):
    try:
        bench.main(["--help"])
    except SystemExit:
        pass
    text = capsys.readouterr().out
    for option in ("--algorithms", "--datasets", "--horizon", "--repeat", "--max-seconds"):
        assert option in text
    assert text.count("(default:") >= 4


def test_default_instances_cover_k_5_16_64_500():
    from duelbench.data.registry import dataset_info

    assert sorted(dataset_info(d).K for d in bench.DEFAULT_INSTANCES) == [5, 16, 64, 500]


def test_cases_are_capped_and_missing_data_is_skipped(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DUELBENCH_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DUELBENCH_DATA_MIRROR", raising=False)
    from duelbench.data.registry import clear_cache

    clear_cache()
    assert bench.main(["--algorithms", "random", "--datasets", "mslr5_condorcet_printed", "kom_mslr64_noncondorcet",
                       "--horizon", "10000000", "--repeat", "1", "--max-seconds", "0.01"]) == 0
    out = json.loads(capsys.readouterr().out)
    case = out["cases"]["random"]["mslr5_condorcet_printed"]
    assert case["capped"] and case["horizon"] < 10_000_000 and case["steps_per_second"] > 0
    assert out["K"] == {"mslr5_condorcet_printed": 5}
    assert "kom_mslr64_noncondorcet" in out["skipped"]


def test_tables_hold_one_row_per_case_and_one_column_per_k(tmp_path, capsys):
    """--csv/--md (the report's engine throughput table): every (algorithm, instance) case, K per
    column, the machine and the settings stated."""
    import csv

    assert bench.main(["--algorithms", "random", "rucb", "--datasets", "mslr5_condorcet_printed", "sushi",
                       "--horizon", "5000", "--repeat", "1", "--max-seconds", "0.01",
                       "--csv", str(tmp_path / "t.csv"), "--md", str(tmp_path / "t.md")]) == 0
    capsys.readouterr()
    rows = list(csv.DictReader(open(tmp_path / "t.csv")))
    assert tuple(rows[0]) == bench.TABLE_COLUMNS
    assert {(r["algorithm"], r["dataset"], r["K"]) for r in rows} == {
        (a, d, k) for a in ("random", "rucb") for d, k in (("mslr5_condorcet_printed", "5"), ("sushi", "16"))}
    assert all(int(r["steps_per_second"]) > 0 for r in rows)
    md = (tmp_path / "t.md").read_text()
    assert "| K = 5 (mslr5_condorcet_printed) | K = 16 (sushi) |" in md
    assert md.count("\n| random |") == 1 and md.count("\n| rucb |") == 1
    assert "Host dependent" in md and "CPUs), Python" in md


def test_report_md_closes_with_a_link_to_the_throughput_table(tmp_path):
    from duelbench.report.markdown import write_report

    status = tmp_path / "status.csv"
    status.write_text("paper,item,status,checks_passed,checks_total,note\n")
    table = tmp_path / "engine" / "throughput.md"
    table.parent.mkdir()
    table.write_text("# Engine throughput\n\nSingle-core steps per second.\n\n| algorithm | K = 5 |\n|---|---:|\n| rucb | 9 |\n")
    text = write_report(str(tmp_path / "REPORT.md"), str(tmp_path), {}, {}, str(status), "smoke", str(table))
    tail = text.split("## Engine throughput", 1)[1]
    assert "(engine/throughput.md)" in tail and "| rucb | 9 |" not in tail  # linked: REPORT.md holds no timing
    assert "## Engine throughput" not in write_report(str(tmp_path / "R2.md"), str(tmp_path), {}, {}, str(status),
                                                      "smoke")


def test_the_floor_is_the_regret_of_the_cycled_pairs_and_random_is_timed_against_it(capsys):
    """The floor loop does its declared work (its total is the regret of the pairs it cycles
    through, its wins follow P), and --floor prints both speeds and their ratio."""
    import numpy as np

    P = np.array([[0.5, 0.9], [0.1, 0.5]])
    regret = np.array([[0.0, 1.0], [2.0, 3.0]])
    total, wins = bench.floor_loop(P, regret, 8, np.random.default_rng(0))
    assert total == 2 * (0.0 + 1.0 + 2.0 + 3.0)
    u = np.random.default_rng(0).random(8)
    assert wins == int(np.sum(u < np.tile(P.ravel(), 2)))
    assert bench.main(["--floor", "--datasets", "mslr5_condorcet_printed", "--horizon", "20000", "--repeat", "1"]) == 0
    line = capsys.readouterr().out
    assert line.startswith("mslr5_condorcet_printed (K = 5): floor ") and "random/floor" in line
