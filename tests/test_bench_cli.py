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
