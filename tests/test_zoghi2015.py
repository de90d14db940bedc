"""Zoghi et al. 2015 experiment: Appendix-C sampling and statistics, settings, plan, checks logic.

The MSLR-dependent tests use the data mirror (``mslr_mirror`` fixture; skipped without it).
"""

from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
import pytest
import yaml

from duelbench.config import ConfigError, data_file
from duelbench.experiments import planning, samples
from duelbench.experiments import zoghi2015 as z
from duelbench.experiments.zoghi2015 import config as zcfg
from duelbench.experiments.contract import SampleShard
from duelbench.experiments.zoghi2015 import appendix_c as ac
from duelbench.experiments.zoghi2015 import appendix_c_tables as act
from duelbench.experiments.zoghi2015 import checks as zc
from duelbench.problems import winners as W
from duelbench.problems.generators import random_btl

CHECKOUT = Path(__file__).resolve().parent.parent
E = z.EXPERIMENT


@pytest.fixture(scope="module")
def config() -> dict:
    with open(CHECKOUT / "config" / "config.yaml") as fh:
        return yaml.safe_load(fh)


@pytest.fixture(scope="module")
def informational(mslr_mirror):
    import os

    os.environ.setdefault("DUELBENCH_DATA_MIRROR", str(mslr_mirror))
    from duelbench import load_matrix

    return load_matrix("mslr_informational")


def random_matrix(K: int, rng: np.random.Generator, noise: float = 0.3) -> np.ndarray:
    """A random preference matrix with cycles: a BTL core plus skew-symmetric noise, no ties."""
    theta = rng.normal(size=K)
    eta = rng.normal(scale=noise, size=(K, K))
    eta = np.triu(eta, 1)
    eta = eta - eta.T
    P = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :] + eta)))
    np.fill_diagonal(P, 0.5)
    return P


# --------------------------------------------------------------------------------------------
# sampling
# --------------------------------------------------------------------------------------------
def test_sample_subsets_are_sorted_uniform_k_subsets():
    for K in (1, 2, 17, 135, 136):
        s = ac.sample_subset(2015, "mslr_informational", K, 3)
        assert s.shape == (K,) and np.all(np.diff(s) > 0) and s.min() >= 0 and s.max() < 136
    assert np.array_equal(ac.sample_subset(2015, "mslr_informational", 136, 0), np.arange(136))


def test_sample_streams_depend_only_on_seed_model_k_and_index():
    a = ac.sample_subset(7, "mslr_informational", 20, 5)
    assert np.array_equal(a, ac.sample_subset(7, "mslr_informational", 20, 5))
    assert not np.array_equal(a, ac.sample_subset(7, "mslr_informational", 20, 6))
    assert not np.array_equal(a, ac.sample_subset(8, "mslr_informational", 20, 5))
    assert not np.array_equal(a, ac.sample_subset(7, "mslr_navigational", 20, 5))


def test_uniform_marginals():
    """Each ranker is in a K-subset with probability K/136."""
    counts = np.zeros(136)
    n = 2000
    for i in range(n):
        counts[ac.sample_subset(0, "mslr_perfect", 10, i)] += 1
    p = counts / n
    assert abs(p.mean() - 10 / 136) < 1e-12
    assert np.all(np.abs(p - 10 / 136) < 5 * math.sqrt((10 / 136) / n))


def _plan(config, samples_per_shard, k_values=(1, 3, 50, 136), n=7, seed=11, models=("mslr_informational", "mslr_perfect"),
          full=("mslr_informational",)):
    """The Appendix-C sample shards of a configuration with these settings (fidelity smoke)."""
    cfg = copy.deepcopy(config)
    cfg["fidelities"]["smoke"]["overrides"]["zoghi2015"]["appendix_c"] = {}
    cfg["zoghi2015"]["appendix_c"].update(click_models=list(models), winner_statistics=list(full), seed=seed,
                                          k_values=list(k_values), samples_per_k=n, samples_per_shard=samples_per_shard)
    return zcfg.appendix_c_samples(E.settings(cfg, "smoke"))


def test_shard_layout_covers_each_sample_once_and_changes_no_sample(config):
    for sps in (1, 4, 7, 10, 1000):
        shards = _plan(config, sps)
        for model in ("mslr_informational", "mslr_perfect"):
            family = sorted((sh for sh in shards if sh.family == model), key=lambda sh: sh.a)
            assert all(sh.datasets == (model,) and sh.job["click_model"] == model for sh in family)
            pairs = [p for sh in family for p in ac.sample_pairs(sh.job, sh.a, sh.b)]
            assert pairs == [(K, i) for K in (1, 3, 50, 136) for i in range(7)]
    modes = {sh.family: sh.job["mode"] for sh in _plan(config, 5)}
    assert modes == {"mslr_informational": "full", "mslr_perfect": "condorcet"}
    # the folder names what the content depends on, not the layout
    assert {Path(sh.path).parent for sh in _plan(config, 3)} == {Path(sh.path).parent for sh in _plan(config, 8)}
    other = _plan(config, 5, seed=12, models=("mslr_perfect",), full=())
    assert Path(other[0].path).parent != Path([s for s in _plan(config, 5) if s.family == "mslr_perfect"][0].path).parent


def test_shard_job_params_round_trip(config):
    import json

    sh = _plan(config, 5)[2]
    p = json.loads(sh.job_params())
    # the kept columns are the readers' choice (archive key), not an input of the job
    again = SampleShard(experiment=p["experiment"], family=p["family"], function=p["function"], job=p["job"],
                        a=p["a"], b=p["b"], path=sh.path, datasets=tuple(p["datasets"]), columns=sh.columns)
    assert again == sh and "columns" not in p
    assert samples.sample_function("zoghi2015", sh.function) is ac.samples


def test_per_sample_records_do_not_depend_on_the_layout(informational):
    P = informational.values
    pairs = [(K, i) for K in (1, 4, 40, 136) for i in range(3)]
    whole = ac.compute_samples(P, "mslr_informational", 5, pairs)
    parts = [ac.compute_samples(P, "mslr_informational", 5, pairs[a:a + 5]) for a in range(0, len(pairs), 5)]
    for key in whole:
        assert whole[key].ndim == 1 and whole[key].shape == (len(pairs),), key  # one row per sample
        joined = np.concatenate([p[key] for p in parts])
        assert np.array_equal(whole[key], joined, equal_nan=key.startswith("delta")), key
    # the family function: samples a..b-1 of the K-major enumeration, whatever the split
    job = ac.family_job("mslr_informational", seed=5, k_values=[1, 4, 40, 136], samples_per_k=3, support_tol=1e-9)
    split = [ac.samples(job, a, min(a + 5, 12)) for a in range(0, 12, 5)]
    for key in whole:
        assert np.array_equal(whole[key], np.concatenate([p[key] for p in split]), equal_nan=key.startswith("delta"))


def test_stored_sets_are_the_sampled_rankers_and_the_winners(informational):
    P = informational.values
    pairs = [(K, i) for K in (2, 17, 70, 135) for i in range(2)]
    cols = ac.compute_samples(P, "mslr_informational", 9, pairs)
    rec = act.Records("mslr_informational", cols)
    for row, (K, i) in enumerate(pairs):
        s = ac.sample_subset(9, "mslr_informational", K, i)
        subset = np.stack([cols[c] for c in ac.set_columns("subset")], axis=1)[row]
        assert np.array_equal(subset, ac.mask_words(s))
        st = ac.sample_statistics(P[np.ix_(s, s)])
        for notion in ac.NOTIONS:
            assert rec.winner_indices(row, notion) == tuple(int(s[j]) for j in st.winners[notion]), notion
    cond = ac.compute_samples(P, "mslr_informational", 9, pairs, mode="condorcet")
    assert np.array_equal(cond["has_cw"], cols["has_cw"]) and np.array_equal(cond["subset_w0"], cols["subset_w0"])
    assert (cond["C"] == -1).all() and np.isnan(cond["delta"]).all() and not cond["winners_copeland_w0"].any()


def test_bad_settings_raise_clear_errors(config):
    with pytest.raises(ac.AppendixCError, match="k_values"):
        ac.resolve_k_values([0, 5])
    with pytest.raises(ac.AppendixCError, match="click_models"):
        ac.family_job("mslr_other", seed=0, k_values="all", samples_per_k=1, support_tol=1e-9)
    bad = copy.deepcopy(config)
    bad["zoghi2015"]["appendix_c"]["click_models"] = ["mslr_other"]
    with pytest.raises(ConfigError, match="click_models"):
        E.samples(E.settings(bad, "paper"))


# --------------------------------------------------------------------------------------------
# per-sample statistics
# --------------------------------------------------------------------------------------------
def test_top_cycle_restriction_gives_the_full_von_neumann_supports():
    rng = np.random.default_rng(3)
    for trial in range(60):
        K = int(rng.integers(2, 25))
        P = random_matrix(K, rng, noise=float(rng.choice([0.05, 0.5, 2.0])))
        union, solution, smith = ac.von_neumann_supports(P, 1e-9)
        assert union == W.von_neumann_support(P, 1e-9, "union")
        assert solution == W.von_neumann_support(P, 1e-9, "solution")
        S = ac.top_cycle(P)
        assert smith == S.size
        outside = np.setdiff1d(np.arange(K), S)
        assert np.all(P[np.ix_(S, outside)] > 0.5)  # members beat every non-member
        assert set(W.copeland_winners(P)) <= set(S.tolist())


def test_top_cycle_of_transitive_and_cyclic_matrices():
    P = random_btl(6, np.random.default_rng(0)).values
    assert ac.top_cycle(P).tolist() == [W.condorcet_winner(P)]
    C3 = np.array([[0.5, 0.7, 0.3], [0.3, 0.5, 0.7], [0.7, 0.3, 0.5]])
    assert ac.top_cycle(C3).tolist() == [0, 1, 2]


#: Arm 0 beats everyone narrowly (Condorcet winner); arm 1 beats 2 and 3 by far (Borda winner).
COPELAND_NOT_BORDA = np.array([
    [0.50, 0.51, 0.51, 0.51],
    [0.49, 0.50, 0.90, 0.90],
    [0.49, 0.10, 0.50, 0.60],
    [0.49, 0.10, 0.40, 0.50],
])


def test_statistics_of_a_matrix_whose_copeland_and_borda_winners_differ():
    st = ac.sample_statistics(COPELAND_NOT_BORDA)
    assert st.has_cw and st.C == 1 and st.L_C == 0
    assert st.winners["copeland"] == (0,)
    assert st.winners["borda"] == (1,)
    assert st.winners["vn_union"] == st.winners["vn_solution"] == (0,)
    assert st.smith == 1
    # Delta (Def. 3.6) = min over winner/non-winner gaps 0.01 and Delta*_min; Delta_min = 0.01
    assert st.delta_min == pytest.approx(0.01)
    assert st.ratio == pytest.approx((st.delta / 0.01) ** 2)


def test_statistics_of_a_cycle_and_of_a_single_arm():
    C3 = np.array([[0.5, 0.7, 0.3], [0.3, 0.5, 0.7], [0.7, 0.3, 0.5]])
    st = ac.sample_statistics(C3)
    assert not st.has_cw and st.C == 3 and st.L_C == 1
    assert math.isnan(st.ratio)  # C = K: Delta undefined (Z7)
    assert st.winners["vn_union"] == (0, 1, 2)
    one = ac.sample_statistics(np.array([[0.5]]))
    assert one.has_cw and one.C == 1 and one.L_C == 0 and math.isnan(one.ratio)
    assert all(w == (0,) for w in one.winners.values())


def _records(mats, ks=None):
    """Records of hand-made matrices (each sample uses rankers 0..K-1), columns as the sample
    function stores them."""
    rows = {k: [] for k in ("k", "index", "has_cw", "C", "L_C", "delta", "delta_min", "smith")}
    sets = {name: [] for name in ac.SETS}
    for j, P in enumerate(mats):
        K = P.shape[0]
        st = ac.sample_statistics(P)
        rows["k"].append(K if ks is None else ks[j])
        rows["index"].append(j)
        rows["has_cw"].append(st.has_cw)
        rows["C"].append(st.C)
        rows["L_C"].append(st.L_C)
        rows["delta"].append(st.delta)
        rows["delta_min"].append(st.delta_min)
        rows["smith"].append(st.smith)
        sets["subset"].append(ac.mask_words(np.arange(K)))
        for n in ac.NOTIONS:
            sets[f"winners_{n}"].append(ac.mask_words(st.winners[n]))
    arrays = {k: np.asarray(v) for k, v in rows.items()}
    for name, words in sets.items():
        arrays.update({c: np.asarray(words)[:, j] for j, c in enumerate(ac.set_columns(name))})
    return act.Records(click_model="hand", arrays=arrays)


def test_overlaps_and_table1_on_hand_made_matrices():
    C3 = np.array([[0.5, 0.7, 0.3], [0.3, 0.5, 0.7], [0.7, 0.3, 0.5]])
    rec = _records([COPELAND_NOT_BORDA, C3], ks=[4, 4])
    ov = rec.overlap("copeland", "borda")
    assert ov.tolist() == [False, True]
    assert rec.overlap("copeland", "vn_union").tolist() == [True, True]
    assert rec.contained("copeland", "vn_union").tolist() == [True, True]
    assert rec.winner_indices(0, "borda") == (1,)
    long = act.table1_long(rec, "C", "union")
    main = long[long["variant"] == "main"]
    cell = main[(main["row"] == "copeland") & (main["column"] == "borda")].iloc[0]
    assert cell["percent"] == pytest.approx(50.0)
    assert cell["se"] == pytest.approx(100 * math.sqrt(0.25 / 2))
    assert not bool(cell["calibrated"])
    rw = main[(main["row"] == "borda") & (main["column"] == "random_walk")].iloc[0]
    assert bool(rw["calibrated"])
    assert set(long["variant"]) == {"main", "rw_a", "rw_b", "vn_solution"}
    mat = act.table1_matrix(long)
    assert list(mat.columns) == list(act.TABLE1_NOTIONS)
    assert list(mat.index) == list(act.TABLE1_NOTIONS) + ["copeland_in_vn_support"]
    assert np.allclose(np.diag(mat.loc[list(act.TABLE1_NOTIONS)].to_numpy()), 100)
    assert mat.loc["copeland", "borda"] == mat.loc["borda", "copeland"] == pytest.approx(50.0)


def test_equal_weight_pooling_and_its_standard_error():
    k = np.array([1, 1, 2, 2, 2, 2])
    flag = np.array([1, 0, 1, 1, 1, 0])
    pct, se = act.pooled_percentage(k, flag)
    assert pct == pytest.approx(62.5)
    assert se == pytest.approx(100 * math.sqrt(0.5 * 0.5 / 2 + 0.75 * 0.25 / 4) / 2)


def test_condorcet_c_lc_and_delta_tables():
    C3 = np.array([[0.5, 0.7, 0.3], [0.3, 0.5, 0.7], [0.7, 0.3, 0.5]])
    T3 = np.array([[0.5, 0.6, 0.8], [0.4, 0.5, 0.55], [0.2, 0.45, 0.5]])
    rec = _records([C3, T3])
    cond = act.condorcet_table({"hand": rec})
    assert cond["p_condorcet"].tolist() == [0.5] and cond["n_samples"].tolist() == [2]
    assert cond["stderr"].iloc[0] == pytest.approx(math.sqrt(0.25 / 2))
    dist = act.c_lc_distribution({"hand": rec})
    c = dist[dist["quantity"] == "C"].set_index("value")["count"].to_dict()
    assert c == {1: 1, 3: 1}
    ratio = act.delta_ratio_table(rec)
    # T3 (Condorcet winner 0, L_C = 0): Delta*_i = the largest gap among i's losses, Delta*_1 = 0.1,
    # Delta*_2 = 0.3; Delta = min(0.1, 0.3, Delta*_min = 0.1) = 0.1, Delta_min = 0.05: ratio 4
    assert ratio["n_defined"].tolist() == [1]  # the cycle (C = K) is excluded
    assert ratio["mean_ratio"].iloc[0] == pytest.approx(4.0)


# --------------------------------------------------------------------------------------------
# facts of the data files (fixed properties of the MSLR matrices)
# --------------------------------------------------------------------------------------------
def test_facts_of_the_mslr_matrices(informational):
    facts = zc.fact_measurements()
    assert facts["facts:informational_has_no_cw"].value is True
    assert facts["facts:navigational_and_perfect_have_cw"].value is True
    assert round(facts["facts:full_delta_ratio"].value) == 1419  # unrounded: the region holds the rounding


def test_delta_star_pairs_is_at_least_delta(informational):
    P = informational.submatrix(list(range(12)))
    ds = zc.delta_star_pairs(P)
    gaps = np.abs(P.values - 0.5)
    assert np.all(ds >= gaps)


# --------------------------------------------------------------------------------------------
# settings and checks logic
# --------------------------------------------------------------------------------------------
def test_settings_defaults_and_errors(config):
    for fid in ("paper", "quick", "smoke"):
        s = E.settings(config, fid)
        assert s["appendix_c"]["winner_statistics"] == ["mslr_informational"]
        assert s["appendix_c"]["random_walk_main"] == "C"
    assert E.settings(config, "paper")["appendix_c"]["k_values_resolved"] == list(range(1, 137))
    bad = copy.deepcopy(config)
    bad["zoghi2015"]["appendix_c"]["pooling"] = "pooled_samples"
    with pytest.raises(ConfigError, match="pooling"):
        E.settings(bad, "paper")
    bad = copy.deepcopy(config)
    bad["zoghi2015"]["figure1"]["algorithms"] = ["ccb", "ccbb"]
    with pytest.raises(ConfigError, match=r"zoghi2015.figure1.algorithms\[1\]"):
        E.settings(bad, "paper")


def test_config_section_matches_its_schema(config):
    import jsonschema

    with open(CHECKOUT / "workflow" / "schemas" / "zoghi2015.schema.yaml") as fh:
        schema = yaml.safe_load(fh)
    from duelbench.config import effective_config

    for fid in ("paper", "quick", "smoke"):
        jsonschema.validate(effective_config(config, fid)["zoghi2015"], schema)


def test_outputs_and_shards_follow_the_fidelity(config):
    paper = E.outputs(config, "paper")
    assert paper["checks_csv"] == "figures/zoghi2015/checks.csv"
    assert E.outputs(config, "smoke")["table1_md"] == "results/smoke/figures/zoghi2015/table1_overlap.md"
    shards = E.samples(E.settings(config, "paper"))
    assert len(shards) == 3 * 136 * 10000 // 20000
    assert {sh.family for sh in shards} == {"mslr_informational", "mslr_navigational", "mslr_perfect"}
    assert all(sh.path.startswith("results/paper/samples/zoghi2015/") for sh in shards)
    regret = zcfg.regret_shards(E.settings(config, "paper"))
    savage = [s for s in regret["figure1"] if s.algorithm == "copeland_savage"]
    assert sorted({s.horizon for s in savage}) == [10**7, 2 * 10**7]  # the T/2 comparison job
    assert {s.run_stop - s.run_start for s in regret["figure2"]} == {1}


def test_pooled_statistics_are_inconclusive_without_every_k(tmp_path, config):
    """At a fidelity that samples only some K, pooled statistics are not faked."""
    s = E.settings(config, "smoke")
    C3 = np.array([[0.5, 0.7, 0.3], [0.3, 0.5, 0.7], [0.7, 0.3, 0.5]])
    rec = _records([COPELAND_NOT_BORDA, C3], ks=[1, 136])
    out = {k: str(tmp_path / f"{k}.csv") for k in ("condorcet_csv", "table1_long_csv", "c_lc_csv", "delta_ratio_csv")}
    rec.click_model = z.MAIN_CLICK_MODEL
    act.condorcet_table({z.MAIN_CLICK_MODEL: rec}).to_csv(out["condorcet_csv"], index=False)
    act.table1_long(rec).to_csv(out["table1_long_csv"], index=False)
    act.c_lc_distribution({z.MAIN_CLICK_MODEL: rec}).to_csv(out["c_lc_csv"], index=False)
    act.delta_ratio_table(rec).to_csv(out["delta_ratio_csv"], index=False)
    m = zc.appendix_c_measurements(out, s)
    for stat in ("table1:copeland:borda", "table1:copeland_in_vn_support", "fig4:decreases_rapidly",
                 "fig5:c_and_lc_small", "fig6:mean_over_k"):
        assert m[stat].value is None and "needs every K" in m[stat].evidence, stat
    assert m["fig6:mean_at_135"].value is None
    # the Condorcet sample is labelled K = 1, the cycle K = 136
    assert m["fig4:endpoints"].value is True and "P_136 = 0.0" in m["fig4:endpoints"].evidence


def test_every_registry_statistic_is_documented_and_computed(config):
    from duelbench.report.checks import load_registry

    reg = load_registry(str(data_file("zoghi2015")))
    doc = z.__doc__
    for c in reg["checks"]:
        stat = c["statistic"]
        head = stat.split(":")[0]
        documented = stat in doc or any(f"``{head}:" in line for line in doc.splitlines())
        assert documented, stat


# --------------------------------------------------------------------------------------------
# the plan (experiment contract)
# --------------------------------------------------------------------------------------------
def test_plan_declares_every_output_once_and_an_item_for_every_figure_and_table(config):
    import dataclasses

    for fid in ("paper", "quick", "smoke"):
        p = planning.plan(dict(config, fidelity=fid), "zoghi2015")
        # the package's outputs and the contract's reading-sensitivity step (duelbench.experiments.readings)
        out = {**E.outputs(config, fid), **{f"readings_{k}": v for k, v in p.step("readings").outputs.items()}}
        assert p.kinds == ("copeland_zoghi", "copeland")
        assert [s.name for s in p.steps] == ["appendix_c_tables", "appendix_c_figures", "regret_aggregate",
                                             "regret_figures", "checks", "readings"]
        assert sorted(p.outputs()) == sorted(out.values())  # each output written by exactly one step
        shown = {path for item in p.items for path in item.outputs}
        assert shown == set(out.values()), sorted(set(out.values()) - shown)
        assert {i.id for i in p.items} >= {"figure1", "figure2", "figure3", "sensitivity", "figure4", "table1",
                                           "figure5", "figure6", "checks"}
        for item in p.items:
            assert item.caption and item.title, item.id
            if item.kind == "figure":
                assert item.outputs[0].endswith(".png"), item.id
        # Appendix C: one family per click model, reading that model's matrix
        tables = p.step("appendix_c_tables")
        assert tables.families == tuple(E.settings(config, fid)["appendix_c"]["click_models"])
        assert {(sh.family, sh.datasets) for sh in p.samples} == {(m, (m,)) for m in tables.families}
        assert {s.name for s in p.steps if s.shards} == {"regret_aggregate", "checks"}
        assert p.shards == E.shard_specs(config, fid)
    captions = {i.id: i.caption for i in planning.plan(config, "zoghi2015").items}
    assert "T = 2e+07" in captions["figure1"] and "50 runs" in captions["figure1"]
    assert "10000 uniform K-subsets per K, K = 1..136" in captions["figure4"]
    assert "calibrated" in captions["table1"] and "RW-C" in captions["table1"] and "(Z6)" in captions["table1"]
    assert "C = K" in captions["figure6"] and "Z7" in captions["figure6"]
    # a step reading an undeclared family is refused
    p = planning.plan(config, "zoghi2015")
    p.steps[0] = dataclasses.replace(p.steps[0], samples=("mslr_informational", "mslr_other"))
    with pytest.raises(ConfigError, match="mslr_other"):
        p.check()


def test_timing_tables_mark_archived_shards_as_untimed(config, tmp_path, monkeypatch):
    """Shards read from the results archive (no sidecar) give NaN timings with source
    ``archive``; computed shards are timed from their sidecars."""
    import json

    from duelbench.experiments.zoghi2015 import timing

    class Sources:
        def __init__(self, archived):
            self.archived = archived

        def status(self, shard):
            return "valid" if shard.path in self.archived else "missing"

    cfg = dict(config, results=str(tmp_path))
    by_item = zcfg.regret_shards(E.settings(cfg, "smoke"))
    first = {item: specs[0] for item, specs in by_item.items()}
    archived = {sp.path for specs in by_item.values() for sp in specs} - {sp.path for sp in first.values()}
    for sp in first.values():
        Path(sp.path).parent.mkdir(parents=True, exist_ok=True)
        Path(sp.path + ".json").write_text(json.dumps({
            "content": {"extra": {"steps": 1000}}, "run": {"wall_time_s": 0.5, "cpu_time_s": 0.25,
                                                           "info": {"steps_per_second": 2000.0}}}))
    monkeypatch.setattr(timing, "sources_for", lambda kinds: Sources(archived))
    thr, sidecars = timing.throughput_table(by_item)
    assert sorted(sidecars) == sorted(sp.path + ".json" for sp in first.values())
    computed = thr[thr["source"] != "archive"]
    assert len(computed) == len(first) and (computed["steps_per_second"] > 0).all()
    untimed = thr[thr["source"] == "archive"]
    assert len(untimed) and untimed["steps_per_second"].isna().all() and untimed["wall_s"].isna().all()
    assert (untimed["steps"] > 0).all()
    shards = zcfg.appendix_c_samples(E.settings(cfg, "smoke"))
    monkeypatch.setattr(timing, "sources", lambda: Sources({shards[0].path}))
    for sh in shards[1:]:
        Path(sh.path).parent.mkdir(parents=True, exist_ok=True)
        Path(sh.path + ".json").write_text(json.dumps({"run": {"wall_time_s": 1.8, "cpu_time_s": 0.9}}))
    cost = timing.cost_table(shards)
    assert list(cost.columns) == timing.COST_COLUMNS
    assert cost["source"].tolist() == ["archive"] + ["computed"] * (len(shards) - 1)
    assert np.isnan(cost["cpu_seconds_per_sample"].iloc[0])
    assert cost["cpu_seconds_per_sample"].iloc[1] == pytest.approx(0.9 / (shards[1].b - shards[1].a))


# --------------------------------------------------------------------------------------------
# the registry under the statistics contract
# --------------------------------------------------------------------------------------------
LEGACY_KEYS = ("test", "tolerance", "threshold", "factor", "lower", "upper", "alpha", "se_multiplier")


def test_registry_declares_estimator_region_and_quote():
    from duelbench.report.checks import load_registry

    reg = load_registry(str(data_file("zoghi2015")))
    lines = (CHECKOUT.parent / "shared" / "papers" / "001_46dfb6e9ef9a8784.txt")
    for c in reg["checks"]:
        assert not [k for k in LEGACY_KEYS if k in c], c["id"]
        assert c["estimator"] and c["region"], c["id"]
        if c["kind"] == "published":
            assert c.get("quote") and c.get("lines", "").startswith("L"), c["id"]
            assert len(c["quote"].split()) <= 15, c["id"]
        else:
            assert "quote" not in c, c["id"]
    seen = {}
    for c in reg["checks"]:
        if c["kind"] == "published":
            key = (c["lines"], c["statistic"])
            assert key not in seen, f"{c['id']} duplicates {seen[key]}"
            seen[key] = c["id"]
    if lines.is_file():  # every quote is the paper's text on its lines (spaces and the 5x garbling aside)
        text = lines.read_text(encoding="utf-8").splitlines()
        for c in reg["checks"]:
            if c["kind"] != "published":
                continue
            a, _, b = c["lines"].partition("-")
            span = " ".join(text[int(a[1:]) - 1:int((b or a)[1:])])
            words = [w for w in c["quote"].replace("x10^7", "").replace("L_C", "").split() if w.isalpha()]
            assert all(w in span for w in words), (c["id"], [w for w in words if w not in span])


def test_table1_factors_follow_the_declared_rule():
    """Each Table-1 factor is (x - u)/(x - u - w), w = 1.96 (1 + sqrt 2) s, s the binomial s.e. of
    a percentage over 136 x 10,000 samples (the registry's comment), rounded up at 1e-6."""
    from scipy.stats import norm

    from duelbench.report.checks import load_registry

    reg = load_registry(str(data_file("zoghi2015")))
    cells = [c for c in reg["checks"] if c["statistic"].startswith("table1:") and "printed" in c.get("region", {})]
    assert len(cells) == 7
    z975 = norm.ppf(0.975)
    for c in cells:
        r = c["region"]
        x, u = r["printed"], r["half_unit"]
        assert x == c["published"]
        s = 100 * math.sqrt(x / 100 * (1 - x / 100) / (136 * 10000))
        w = z975 * (1 + math.sqrt(2)) * s
        f = (x - u) / (x - u - w)
        assert r["factor"] == pytest.approx(math.ceil(f * 1e6) / 1e6, abs=1e-12), c["id"]
        region = c["_region"]
        assert region.lower <= x - u - w + 1e-9 and region.upper >= x + u + w - 1e-9, c["id"]


def test_spearman_rows_and_the_inverted_cdf_quantile():
    from scipy.stats import spearmanr

    rng = np.random.default_rng(3)
    k = np.arange(1, 30)
    p = np.round(rng.random((5, k.size)), 1)  # ties
    got = zc.spearman_rows(k, p)
    for r in range(5):
        assert got[r] == pytest.approx(spearmanr(k, p[r]).statistic)
    values = np.array([1.0, 2.0, 3.0, 5.0])
    counts = np.array([[50, 30, 19, 1], [98, 1, 0, 1], [99, 0, 0, 1]])
    expect = [np.percentile(np.repeat(values, row), 99, method="inverted_cdf") for row in counts]
    assert zc.inverted_cdf_quantile(values, counts, 0.99).tolist() == expect


def _appendix_c_tables(tmp_path, p_condorcet, c_values):
    """Hand-made Appendix-C tables with every K = 1..136 (10 samples per K; Figure 4's P_K of 10,000)."""
    import pandas as pd

    ks = np.arange(1, 137)
    n = 10
    out = {k: str(tmp_path / f"{k}.csv") for k in ("condorcet_csv", "table1_long_csv", "c_lc_csv", "delta_ratio_csv")}
    pd.DataFrame({"K": ks, "p_condorcet": p_condorcet, "n_samples": 10000, "stderr": 0.0,
                  "click_model": z.MAIN_CLICK_MODEL}).to_csv(out["condorcet_csv"], index=False)
    rows = [{"variant": "main", "row": r, "column": c, "percent": 50.0 + 10 * (r == "copeland") - 10 * (c == "borda"),
             "se": 0.1, "calibrated": False, "label": "main"}
            for r in (*act.TABLE1_NOTIONS, "copeland_in_vn_support") for c in act.TABLE1_NOTIONS]
    pd.DataFrame(rows).to_csv(out["table1_long_csv"], index=False)
    dist = [{"click_model": z.MAIN_CLICK_MODEL, "K": K, "quantity": q, "value": v, "count": cnt, "percent": 10 * cnt}
            for K in ks for q in ("C", "L_C") for v, cnt in c_values(K)]
    pd.DataFrame(dist).to_csv(out["c_lc_csv"], index=False)
    pd.DataFrame({"K": ks[1:], "mean_ratio": 100.0, "median_ratio": 100.0, "stderr": 10.0, "n_defined": n,
                  "n_samples": n}).to_csv(out["delta_ratio_csv"], index=False)
    return out


def test_appendix_c_claims_carry_their_uncertainty(tmp_path, config):
    from duelbench.report.checks import evaluate, load_registry

    s = E.settings(config, "paper")
    s["appendix_c"]["samples_per_k"] = 10
    p = np.clip(1.2 - np.arange(1, 137) / 68, 0, 1)  # falls from 1 to 0
    out = _appendix_c_tables(tmp_path, p, lambda K: [(1, 9), (2, 1)])
    m = zc.appendix_c_measurements(out, s, replicates=500)
    reg = {c["statistic"]: c for c in load_registry(str(data_file("zoghi2015")))["checks"]}
    fig4 = m["fig4:decreases_rapidly"]
    assert [lab for lab, _ in fig4.components] == ["Spearman + 0.95", "max P_K (K >= 100) - 0.5"]
    assert all(len(cm.replicates) == 500 for _, cm in fig4.components)
    assert evaluate(reg["fig4:decreases_rapidly"], fig4, "paper").outcome == "pass"
    fig5 = m["fig5:c_and_lc_small"]
    assert fig5.value == pytest.approx(2 / 5)  # q99 = 2 at K = 20: 2 / (floor(20/5) + 1)
    assert evaluate(reg["fig5:c_and_lc_small"], fig5, "paper").outcome == "pass"
    order = m["table1:ordering_as_stated"]
    assert len(order.components) == 8
    assert all(cm.se == pytest.approx(0.2) for _, cm in order.components)
    assert m["fig6:mean_over_k"].se == pytest.approx(10.0 * math.sqrt(135) / 135)
    assert m["table1:copeland:borda"].se == 0.1 and m["table1:copeland:borda"].runs == 10
    # a percentile at K/5 still holds the claim; one above it breaks it
    out = _appendix_c_tables(tmp_path, p, lambda K: [(1, 9), (K // 5 + 1, 1)])
    bad = zc.appendix_c_measurements(out, s, replicates=500)["fig5:c_and_lc_small"]
    assert bad.value == 1 and evaluate(reg["fig5:c_and_lc_small"], bad, "paper").outcome == "fail"
