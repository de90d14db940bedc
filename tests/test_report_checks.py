import yaml
import numpy as np
import pytest

from duelbench.report.checks import (Measurement, RegistryError, evaluate, evaluate_registry, is_asserted,
                                     item_status, load_registry, read_csv_rows, status_rows, write_checks_csv)


def _check(**kw):
    base = {"id": "x", "kind": "published", "item": "Table 1", "description": "d", "statistic": "s", "gate": "quick"}
    return {**base, **kw}


def test_legacy_tests_translate_into_regions():
    c = _check(test="abs_tolerance", published=670, tolerance=50)
    assert evaluate(c, Measurement(700), "quick").outcome == "pass"
    assert evaluate(c, Measurement(730), "quick").outcome == "fail"
    # the interval, not the point, decides: 700 +- 1.96 * 20 crosses 720
    assert evaluate(c, Measurement(700, se=20), "quick").outcome == "inconclusive"
    r = _check(test="rel_tolerance", published=100, tolerance=0.1)
    assert evaluate(r, Measurement(109), "paper").outcome == "pass"
    assert evaluate(r, Measurement(89), "paper").outcome == "fail"
    lg = _check(test="log10_tolerance", published=1000, tolerance=0.5)
    assert evaluate(lg, Measurement(1313), "quick").outcome == "pass"
    assert evaluate(lg, Measurement(5000), "quick").outcome == "fail"
    assert evaluate(_check(test="greater_than", threshold=100), Measurement(113.6), "quick").outcome == "pass"
    assert evaluate(_check(test="greater_than", threshold=100), Measurement(99), "quick").outcome == "fail"
    assert evaluate(_check(test="less_than", published=1), Measurement(0.5), "quick").outcome == "pass"
    assert evaluate(_check(test="true"), Measurement(False), "quick").outcome == "fail"
    assert evaluate(_check(test="true"), Measurement(None), "quick").outcome == "inconclusive"


def test_welch_ordering_three_outcomes_on_the_ratio_of_means():
    rng = np.random.default_rng(0)
    c = _check(test="less_mean_welch", min_runs=5)
    low, high = rng.normal(10, 1, 50), rng.normal(12, 1, 50)
    assert evaluate(c, Measurement(a=low, b=high), "paper").outcome == "pass"
    assert evaluate(c, Measurement(a=high, b=low), "paper").outcome == "fail"
    same = rng.normal(10, 1, 50)
    assert evaluate(c, Measurement(a=same, b=same + 0.01), "paper").outcome == "inconclusive"
    assert evaluate(c, Measurement(a=low[:3], b=high[:3]), "paper").outcome == "inconclusive"
    nl = _check(test="not_less_mean_welch")
    assert evaluate(nl, Measurement(a=high, b=low), "paper").outcome == "pass"
    assert evaluate(nl, Measurement(a=low, b=high), "paper").outcome == "fail"
    ratio = _check(test="ratio_less_welch", factor=1 / 3)
    res = evaluate(ratio, Measurement(a=low, b=high * 4), "paper")
    assert res.outcome == "pass"
    # the reproduced value is the declared statistic, mean A / mean B, whatever the factor
    assert res.row()["estimate"] == repr(float(f"{low.mean() / (4 * high.mean()):.12g}"))
    assert evaluate(ratio, Measurement(a=low, b=high * 2), "paper").outcome == "fail"


def test_paired_tests_use_the_pairing():
    """A shared per-run component (e.g. the run's random instance) cancels in the paired test: a
    small consistent difference under large between-run spread is detected paired, not by Welch."""
    rng = np.random.default_rng(1)
    instance = rng.lognormal(5, 1, 40)
    a, b = instance, instance * 1.02 + rng.normal(0, 0.01, 40)
    paired = _check(test="less_mean_paired", min_runs=10)
    welch = _check(test="less_mean_welch", min_runs=10)
    assert evaluate(paired, Measurement(a=a, b=b), "paper").outcome == "pass"
    assert evaluate(welch, Measurement(a=a, b=b), "paper").outcome == "inconclusive"
    assert evaluate(paired, Measurement(a=b, b=a), "paper").outcome == "fail"
    assert evaluate(paired, Measurement(a=a[:5], b=b[:5]), "paper").outcome == "inconclusive"
    assert "paired" in evaluate(paired, Measurement(a=a, b=b), "paper").row()["method"]
    ratio = _check(test="ratio_less_paired", factor=0.5)
    assert evaluate(ratio, Measurement(a=a, b=2.2 * a), "paper").outcome == "pass"
    assert evaluate(ratio, Measurement(a=a, b=1.5 * a), "paper").outcome == "fail"
    with pytest.raises(ValueError, match="unequal length"):
        evaluate(paired, Measurement(a=a, b=b[:-1]), "paper")


def test_gates():
    assert is_asserted("quick", "quick") and is_asserted("quick", "paper") and not is_asserted("quick", "smoke")
    assert is_asserted("full", "paper") and not is_asserted("full", "quick")
    assert not is_asserted("none", "paper")


def test_registry_validation_names_file_and_entry(tmp_path):
    p = tmp_path / "paper.yaml"
    p.write_text("paper: p\nchecks:\n  - id: a\n    kind: published\n    item: T\n    description: d\n"
                 "    statistic: s\n    test: abs_tolerance\n    gate: quick\n")
    with pytest.raises(RegistryError, match=r"paper.yaml: checks\[0\] \(id 'a'\): test abs_tolerance needs"):
        load_registry(p)
    p.write_text("paper: p\nchecks:\n  - id: a\n    kind: nonsense\n    item: T\n    description: d\n"
                 "    statistic: s\n    test: true\n    gate: quick\n")
    with pytest.raises(RegistryError, match="kind must be one of"):
        load_registry(p)
    with pytest.raises(RegistryError, match="not found"):
        load_registry(tmp_path / "missing.yaml")
    p.write_text("paper: p\nchecks:\n  - id: a\n    kind: theory\n    item: T\n    description: d\n"
                 "    statistic: s\n    test: in_interval\n    lower: 2\n    upper: 1\n    gate: quick\n")
    with pytest.raises(RegistryError, match="in_interval needs numbers 'lower' <= 'upper'"):
        load_registry(p)


def test_csv_and_status(tmp_path):
    reg = {"paper": "p", "checks": [
        _check(id="a", test="abs_tolerance", published=1.0, tolerance=0.1, statistic="s1"),
        _check(id="b", test="true", statistic="s2"),
        _check(id="c", test="true", statistic="missing", item="Figure 1"),
    ]}
    res = evaluate_registry(reg, {"s1": Measurement(1.05), "s2": Measurement(False)}, "quick")
    assert [r.outcome for r in res] == ["pass", "fail", "inconclusive"]
    write_checks_csv(res, tmp_path / "checks.csv")
    rows = read_csv_rows(tmp_path / "checks.csv")
    assert rows[0]["claim_id"] == "a" and rows[0]["outcome"] == "pass" and rows[0]["published"] == "1.0"
    assert rows[0]["estimate"] == "1.05" and rows[0]["region"] == "in (0.9000, 1.100)"
    st = {r["item"]: r for r in status_rows("p", res)}
    assert st["Table 1"]["status"] == "partly_replicated" and st["Table 1"]["checks_passed"] == 1
    assert st["Figure 1"]["status"] == "inconclusive"
    assert item_status(res[2:], unavailable=True) == "not_reproducible"
    assert item_status(res[:1]) == "replicated"


def test_errata_need_place_text_reading_and_evidence(tmp_path):
    from duelbench.report.checks import RegistryError, load_registry

    good = {"id": "e", "lines": "L1", "printed": "x", "used": "y", "evidence": "z"}
    for errata, ok in (([good], True), ([{**good, "evidence": ""}], False), ({"e": good}, False)):
        path = tmp_path / "p.yaml"
        path.write_text(yaml.safe_dump({"paper": "p", "checks": [], "errata": errata}))
        if ok:
            assert load_registry(path)["errata"] == errata
        else:
            with pytest.raises(RegistryError, match="errata"):
                load_registry(path)


def test_every_paper_records_its_errata_with_paper_lines():
    from pathlib import Path

    from duelbench.report.checks import load_registry

    for path in sorted((Path(__file__).resolve().parent.parent / "data" / "published").glob("*.yaml")):
        errata = load_registry(path).get("errata", [])
        assert errata, path.name
        # line numbers (Lnnn), or character offsets (@N) for a paper whose text is one line
        assert all(str(e["lines"]).startswith(("L", "@")) for e in errata), path.name
        assert len({e["id"] for e in errata}) == len(errata)


def test_a_shown_number_is_never_a_pass_and_counts_in_no_status(tmp_path):
    """``shown`` rows state no claim: whatever the value, the outcome is ``shown``; an item's
    status is the same with or without them; the registry refuses a gate or a threshold on them."""
    shown = _check(id="s", test="shown", gate="none", statistic="s3")
    for value in (0, 279, -5.0, True, False):
        r = evaluate(shown, Measurement(value), "paper")
        assert r.outcome == "shown" and not r.asserted
    assert evaluate(shown, Measurement(None), "paper").outcome == "inconclusive"
    claim = _check(id="a", test="true", statistic="s1")
    res = evaluate_registry({"paper": "p", "checks": [claim, shown]}, {"s1": Measurement(True), "s3": Measurement(7)},
                            "paper")
    assert [r.outcome for r in res] == ["pass", "shown"]
    assert item_status(res) == item_status(res[:1]) == "replicated"
    assert [r["checks_total"] for r in status_rows("p", res)] == [1]
    assert item_status(res[1:]) == "inconclusive"  # nothing decided
    p = tmp_path / "paper.yaml"
    for extra in ("    gate: quick\n", "    gate: none\n    threshold: -1\n"):
        p.write_text("paper: p\nchecks:\n  - id: a\n    kind: theory\n    item: T\n    description: d\n"
                     f"    statistic: s\n    test: shown\n{extra}")
        with pytest.raises(RegistryError, match="test shown states no claim"):
            load_registry(p)
