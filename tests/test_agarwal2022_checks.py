"""The statistics of the Agarwal et al. (2022) checks on small synthetic tables (no simulation),
and the registry's declarations under the statistics contract."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from duelbench.experiments.agarwal2022.config import PANELS
from duelbench.experiments.agarwal2022.checks import Tables, measure
from duelbench.experiments.claims import Missing
from duelbench.report.checks import evaluate, load_registry

CHECKOUT = Path(__file__).resolve().parent.parent
REGISTRY = CHECKOUT / "data" / "published" / "agarwal2022.yaml"
LEGACY_KEYS = ("test", "tolerance", "threshold", "factor", "lower", "upper", "alpha", "se_multiplier")


def _settings(**kw):
    s = {"fidelity": "paper", "seed": 0, "horizon": 1000, "figure2": {"batches": [2, 8, 16]},
         "theory": {"batches": [16]}, "seed_rank": {"K": [6]}, "check_runs_from": 0}
    s.update(kw)
    return s


def _final(means: dict, runs: int = 40, seed: int = 1) -> pd.DataFrame:
    """R(T) per (panel, curve): ``means[(panel, curve)]`` times a common per-run factor and noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for (panel, curve), m in means.items():
        for run in range(runs):
            rows.append({"panel": panel, "curve": curve, "run": run, "regret": m * (1 + 0.05 * rng.standard_normal())})
    return pd.DataFrame(rows)


def _tables(final, batches=None, theory=None, **kw):
    batches = batches if batches is not None else pd.DataFrame({"run": pd.Series([], dtype=int)})
    theory = theory if theory is not None else pd.DataFrame({"statistic": [], "value": [], "evidence": []})
    return Tables(_settings(**kw), final, batches, theory)


def _check(cid):
    return next(c for c in load_registry(REGISTRY)["checks"] if c["id"] == cid)


def test_the_registry_is_in_the_contract_with_quotes_lines_and_kinds():
    reg = load_registry(REGISTRY)
    errata = {e["id"] for e in reg["errata"]}
    for c in reg["checks"]:
        assert not [k for k in LEGACY_KEYS if k in c], c["id"]
        if c["kind"] == "published":
            assert c.get("quote") and str(c.get("lines", "")).startswith("@"), c["id"]
            assert len(c["quote"].split()) <= 15, c["id"]
        if c["kind"] == "erratum":
            assert c["erratum"] in errata
    kinds = {c["id"]: c["kind"] for c in reg["checks"]}
    assert kinds["c12_lemma46_second_moment_printed"] == "erratum"
    assert kinds["d4_real_data_transitivity"] == "shown"
    # one check per sentence and statistic
    seen = {}
    for c in reg["checks"]:
        if c["kind"] == "published":
            key = (c["lines"], c["statistic"])
            assert key not in seen, (c["id"], seen.get(key))
            seen[key] = c["id"]


def test_every_quote_is_at_its_offset_of_the_paper_text():
    text_path = (REGISTRY.parent / load_registry(REGISTRY)["source"]).resolve()
    text_path = text_path if text_path.is_file() else CHECKOUT.parent / "shared" / "papers" / text_path.name
    if not text_path.is_file():
        pytest.skip("the paper text is not next to the checkout")
    text = text_path.read_text(encoding="utf-8")
    for c in load_registry(REGISTRY)["checks"]:
        if c.get("quote"):
            at = int(str(c["lines"]).split("-")[0].lstrip("@"))
            assert text[at:at + len(c["quote"])] == c["quote"], c["id"]


def test_checks_read_runs_from_check_runs_from_on():
    final = _final({("sushi", "a"): 1.0, ("sushi", "b"): 2.0}, runs=40)
    t = _tables(final, check_runs_from=30)
    m = measure(t, "order:sushi:a:b")
    assert len(m.a) == len(m.b) == 10
    assert len(measure(_tables(final), "order:sushi:a:b").a) == 40


def test_ratio_of_ratios_components_bootstrap_and_decide():
    means = {}
    for p in PANELS:
        syn = p.startswith("syn")
        means[(p, "pcomp")] = 40.0 if syn else 10.0
        means[(p, "rmed1")] = 10.0
    t = _tables(_final(means))
    m = measure(t, "degrades:pcomp")
    assert [lab for lab, _ in m.components] == ["syn_btl/six_rankers", "syn_btl/sushi", "syn_cd/six_rankers",
                                                "syn_cd/sushi"]
    for _, cm in m.components:
        assert cm.value == pytest.approx(4.0, rel=0.1) and len(cm.replicates) > 100
    assert evaluate(_check("c5_pcomp_degrades_on_synthetic"), m, "paper").outcome == "pass"
    # the same tables: SCOMP2 does not approach RMED1 (ratio of ratios above 1): fail
    means2 = {(p, c if c == "rmed1" else "scomp2_b16"): v for (p, c), v in means.items()}
    assert evaluate(_check("c8a_scomp2_approaches_rmed1_on_synthetic"),
                    measure(_tables(_final(means2)), "approaches:scomp2_b16:rmed1"), "paper").outcome == "fail"


def test_the_bootstrap_is_seeded():
    means = {(p, c): (2.0 if c == "scomp" else 1.0) for p in PANELS for c in ("scomp", "rmed1")}
    a = measure(_tables(_final(means)), "degrades:scomp").components[0][1].replicates
    b = measure(_tables(_final(means)), "degrades:scomp").components[0][1].replicates
    assert np.array_equal(a, b)


def test_decreases_in_b_and_kl_vs_gamma_components():
    means = {}
    for p in PANELS:
        means.update({(p, "pcomp_b2"): 3.0, (p, "pcomp_b8"): 2.0, (p, "pcomp_b16"): 1.0, (p, "pcomp"): 1.0,
                      (p, "pcomp_gamma_b16"): 4.0})
    t = _tables(_final(means))
    m = measure(t, "decreases_in_b:sushi:pcomp")
    assert [lab for lab, _ in m.components] == ["B=16/B=8", "B=8/B=2"]
    assert evaluate(_check("f3_pcomp_decreases_in_b_sushi"), m, "paper").outcome == "pass"
    k = measure(t, "kl_vs_gamma:pcomp:16")
    assert [lab for lab, _ in k.components] == list(PANELS)
    assert evaluate(_check("k1_pcomp_kl_much_better_than_gamma"), k, "paper").outcome == "pass"
    assert isinstance(measure(t, "decreases_in_b:sushi:scomp"), Missing)


def test_identical_curves_fail_a_strict_ordering():
    # PCOMP that never eliminates: the same R(T) at every B, run by run
    means = {(p, f"pcomp_b{B}"): 5.0 for p in PANELS for B in (2, 8, 16)}
    final = _final(means, runs=20)
    final["regret"] = final.groupby(["panel", "run"])["regret"].transform("first")
    m = measure(_tables(final), "decreases_in_b:syn_btl:pcomp")
    assert evaluate(_check("f3_pcomp_decreases_in_b_syn_btl"), m, "paper").outcome == "fail"


def _batches(rows):
    base = {"panel": "sushi", "dataset": "sushi", "curve": "scomp2", "algorithm": "scomp2", "batches": 16,
            "batches_used": 3, "comparisons": 1000, "switch_round": -1, "a_prime_size": -1, "winner_in_a_prime": None,
            "seed_rank": 0.0, "seed_empty": False, "winner_eliminated": False, "good_event_estimates": 10,
            "good_event_violations": 0, "regret": 1.0, "identity_deviation": 0.0}
    return pd.DataFrame([{**base, "run": k, **r} for k, r in enumerate(rows)])


def test_split_by_the_seed_set():
    b = _batches([{"seed_rank": 0.0, "regret": 1.0}, {"seed_rank": 0.0, "regret": 1.2},
                  {"seed_rank": 2.0, "regret": 10.0}, {"seed_rank": np.nan, "seed_empty": True, "regret": 12.0},
                  {"seed_rank": 1.0, "regret": 9.0, "switch_round": 4}])
    m = measure(_tables(pd.DataFrame({"run": pd.Series([], dtype=int)}), batches=b), "split:sushi:scomp2")
    assert sorted(m.a) == [9.0, 10.0, 12.0] and sorted(m.b) == [1.0, 1.2]
    assert "1 of 5 runs switched" in m.evidence
    from duelbench.experiments.agarwal2022.tradeoff import split_table

    row = split_table(b).iloc[0]
    assert (row["runs"], row["switched_runs"], row["winner_in_seed_runs"], row["seed_empty_runs"]) == (5, 1, 2, 1)
    assert row["mean_winner_in_seed"] == pytest.approx(1.1) and row["mean_winner_not_in_seed"] == pytest.approx(31 / 3)


def test_lemmas_4_3_and_4_4_are_counted_inside_the_good_event():
    b = _batches([{"curve": "scomp2_gamma_b16", "winner_eliminated": True, "good_event_violations": 1},
                  {"curve": "scomp2_gamma_b16"}, {"curve": "scomp2_gamma_b16", "switch_round": 3, "a_prime_size": 1,
                                                  "winner_in_a_prime": True, "seed_rank": 2.0}])
    t = _tables(pd.DataFrame({"run": pd.Series([], dtype=int)}), batches=b)
    assert measure(t, "good_event:winner_eliminated_runs").value == 0   # the elimination is outside G
    assert measure(t, "good_event:lemma44_violations").value == 0
    g = measure(t, "good_event:violating_runs")
    assert (g.successes, g.trials) == (1, 3)
    assert evaluate(_check("c13_good_event"), g, "paper").outcome == "fail"   # 1 of 3: far above 1/T
