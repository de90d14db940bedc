"""Families of per-run instances (data/generated recipes with ``per_run_seed``): registry kind
"family", instance r drawn from SeedSequence([per_run_seed, r]), the SYN-BTL / SYN-CD families
of Agarwal et al. 2022 (paper 003 @31554-@32428), instance names, errors."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import duelbench
from duelbench.data import generated, registry, sampled
from duelbench.data.errors import InvalidDataFileError, UnknownDatasetError
from duelbench.data.generated import FamilyDatasetError
from duelbench.problems.generators import btl, hard_condorcet, random_btl
from duelbench.problems.winners import condorcet_winner

FAMILIES = {"agarwal_syn_btl": 2022001, "agarwal_syn_cd": 2022002}
FIXED = {"agarwal_syn_btl_fixed": 2022003, "agarwal_syn_cd_fixed": 2022004}
RUNS = 10  # "We repeat each experiment 10 times" (paper 003 @32428)


def _clear():
    generated.recipes.cache_clear()
    sampled.recipes.cache_clear()
    registry.clear_cache()


@pytest.fixture
def recipe_dir(tmp_path, monkeypatch):
    """A temporary data/generated folder whose recipes are registered in a copy of the registry."""
    monkeypatch.setattr(generated, "generated_dir", lambda: tmp_path)
    monkeypatch.setattr(registry, "DATASETS", dict(registry.DATASETS))
    _clear()
    yield tmp_path
    monkeypatch.undo()
    _clear()


def _register():
    """Register the recipes of the (redirected) recipe folder."""
    _clear()
    registry._register_generated()


def _write(folder, text, name="paper.yaml"):
    f = folder / name
    f.write_text(textwrap.dedent(text))
    return f


# ------------------------------------------------------------------------------ declared recipes
def test_declared_families_and_fixed_instances_registered():
    recipes = generated.recipes()
    for name, seed in FAMILIES.items():
        r = recipes[name]
        assert r.is_family and r.per_run_seed == seed and "rng" not in r.params and r.params["K"] == 100
        assert r.file.endswith("data/generated/agarwal2022.yaml") and "paper 003 @" in r.origin
        info = registry.dataset_info(name)
        assert info.kind == "family" and info.K == 100 and not info.needs_mslr and info.description
        assert registry.is_family(name) and registry.required_files(name) == []
        assert name in registry.list_datasets(needs_mslr=False)
    assert recipes["agarwal_syn_btl"].generator == "random_btl"
    assert recipes["agarwal_syn_cd"].generator == "hard_condorcet"
    for name, seed in FIXED.items():
        r = recipes[name]
        assert not r.is_family and r.params["rng"] == seed and r.params["K"] == 100
        assert registry.dataset_info(name).kind == "generated" and not registry.is_family(name)
        assert "alternative reading" in r.origin


def test_fixed_instances_are_single_seeded_draws():
    registry.clear_cache()
    assert np.array_equal(duelbench.load_matrix("agarwal_syn_btl_fixed").values, random_btl(100, 2022003).values)
    assert np.array_equal(duelbench.load_matrix("agarwal_syn_cd_fixed").values, hard_condorcet(100, rng=2022004).values)


# ------------------------------------------------------------------------------ instances
def test_instance_r_is_the_generator_with_seed_sequence_of_r():
    for r in (0, 3, 9):
        P = registry.load_instance("agarwal_syn_btl", r)
        assert P.name == P.identity == f"agarwal_syn_btl.run{r}"
        assert np.array_equal(P.values, random_btl(100, np.random.SeedSequence([2022001, r])).values)
        Q = registry.load_instance("agarwal_syn_cd", r)
        assert np.array_equal(Q.values, hard_condorcet(100, rng=np.random.SeedSequence([2022002, r])).values)


def test_instances_differ_between_runs_and_are_cached():
    for family in FAMILIES:
        digests = [registry.load_instance(family, r).sha256 for r in range(RUNS)]
        assert len(set(digests)) == RUNS
        a = registry.load_instance(family, 2)
        assert registry.load_instance(family, 2) is a and duelbench.load_matrix(f"{family}.run2") is a
        registry.clear_cache()
        b = registry.load_instance(family, 2)
        assert b is not a and b == a


def test_instances_are_the_same_bytes_in_another_process():
    script = ("import json; from duelbench.data.registry import load_instance; "
              "print(json.dumps({f: [load_instance(f, r).values.tobytes().hex() for r in (0, 7)] "
              f"for f in {sorted(FAMILIES)!r}}}))")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    other = json.loads(proc.stdout)
    for family in FAMILIES:
        assert other[family] == [registry.load_instance(family, r).values.tobytes().hex() for r in (0, 7)]


def test_syn_btl_instances_follow_the_generator_definition():
    """P_ij = w_i / (w_i + w_j) with w_i ~ Uniform(0, 1] (paper 003 @31554)."""
    for r in range(RUNS):
        P = registry.load_instance("agarwal_syn_btl", r)
        g = np.random.default_rng(np.random.SeedSequence([2022001, r]))
        w = 1.0 - g.random(100)  # the generator's realisation of Uniform(0, 1]
        assert np.all((w > 0) & (w <= 1))
        assert np.array_equal(P.values, btl(w).values)
        # utilities recovered from the matrix (relative to arm 0) order the arms: SST holds
        rel = P.values[:, 0] / P.values[0, :]
        assert np.allclose(rel, w / w[0])
        assert np.array_equal(P.values > 0.5, rel[:, None] > rel[None, :])


def test_syn_cd_instances_have_one_condorcet_winner_and_ties_elsewhere():
    """P_li = 1/2 + eps (eps uniform in (0, 0.5)), P_ij = 1/2 for i, j != l (paper 003 @31931)."""
    winners, gaps = set(), set()
    for r in range(RUNS):
        P = registry.load_instance("agarwal_syn_cd", r).values
        cw = condorcet_winner(registry.load_instance("agarwal_syn_cd", r))
        assert cw is not None
        others = np.delete(np.arange(100), cw)
        eps = P[cw, others] - 0.5
        assert np.all(eps == eps[0]) and 0.0 < eps[0] < 0.5
        assert np.all(P[np.ix_(others, others)] == 0.5)
        winners.add(int(cw))
        gaps.add(float(eps[0]))
    assert len(winners) > 1 and len(gaps) == RUNS  # drawn per instance


# ------------------------------------------------------------------------------ names and errors
def test_load_matrix_of_a_family_names_load_instance():
    with pytest.raises(FamilyDatasetError) as exc:
        duelbench.load_matrix("agarwal_syn_btl")
    msg = str(exc.value)
    assert "'agarwal_syn_btl'" in msg and "family of per-run instances" in msg and "load_instance" in msg
    assert isinstance(exc.value, ValueError)
    with pytest.raises(FamilyDatasetError, match="load_instance"):
        generated.load_generated("agarwal_syn_cd")


def test_instance_names():
    info = registry.dataset_info("agarwal_syn_cd.run4")
    assert info.kind == "instance" and info.K == 100 and registry.required_files("agarwal_syn_cd.run4") == []
    assert not registry.is_family("agarwal_syn_cd.run4") and "agarwal_syn_cd.run4" not in registry.DATASETS
    for bad in ("agarwal_syn_cd.run04", "agarwal_syn_cd.run-1", "agarwal_syn_cd.run", "sushi.run1",
                "agarwal_syn_cd.run1x", "nope.run1"):
        with pytest.raises(UnknownDatasetError, match="<family>.run<r>"):
            registry.load_matrix(bad)


def test_load_instance_errors():
    with pytest.raises(ValueError, match="not a family"):
        registry.load_instance("sushi", 0)
    with pytest.raises(ValueError, match="not a family"):
        registry.load_instance("agarwal_syn_btl_fixed", 0)
    with pytest.raises(UnknownDatasetError):
        registry.load_instance("nope", 0)
    for run in (-1, 1.5, True, "3"):
        with pytest.raises(ValueError, match="non-negative integer"):
            registry.load_instance("agarwal_syn_btl", run)
    assert registry.load_instance("agarwal_syn_btl", np.int64(1)) is registry.load_instance("agarwal_syn_btl", 1)


def test_family_recipe_in_another_folder(recipe_dir):
    _write(recipe_dir, """
        datasets:
          tiny_fam: {generator: random_btl, params: {K: 4}, per_run_seed: 7}
          tiny_one: {generator: random_btl, params: {K: 3, rng: 7}}
    """)
    _register()
    assert registry.is_family("tiny_fam") and registry.dataset_info("tiny_fam").K == 4
    assert registry.dataset_info("tiny_one").kind == "generated"
    assert "a new instance per run" in registry.dataset_info("tiny_fam").description
    P = registry.load_instance("tiny_fam", 5)
    assert P.name == "tiny_fam.run5" and np.array_equal(P.values, random_btl(4, np.random.SeedSequence([7, 5])).values)


@pytest.mark.parametrize("body,key,fix", [
    ("{generator: random_btl, params: {K: 4, rng: 3}, per_run_seed: 7}", "datasets.bad.params.rng",
     "remove params.rng"),
    ("{generator: random_btl, params: {K: 4}, per_run_seed: -1}", "datasets.bad.per_run_seed",
     "non-negative integer"),
    ("{generator: random_btl, params: {K: 4}, per_run_seed: 1.5}", "datasets.bad.per_run_seed",
     "non-negative integer"),
    ("{generator: random_btl, params: {K: 4}, per_run_seed: '7'}", "datasets.bad.per_run_seed",
     "non-negative integer"),
    ("{generator: random_btl, params: {K: 4}, per_run_seed: true}", "datasets.bad.per_run_seed",
     "non-negative integer"),
    ("{generator: random_btl, params: {K: 4}, per_run_seed: null}", "datasets.bad.per_run_seed",
     "non-negative integer"),
    ("{generator: btl, params: {utilities: [1, 2]}, per_run_seed: 7}", "datasets.bad.per_run_seed",
     "has no rng parameter"),
])
def test_invalid_family_recipes_name_file_key_and_fix(recipe_dir, body, key, fix):
    f = _write(recipe_dir, f"datasets:\n  bad: {body}\n")
    with pytest.raises(InvalidDataFileError) as exc:
        generated.recipes()
    msg = str(exc.value)
    assert str(f) in msg and key in msg and fix in msg


def test_family_name_must_not_look_like_an_instance(recipe_dir):
    f = _write(recipe_dir, "datasets:\n  a.run2: {generator: random_btl, params: {K: 4}, per_run_seed: 7}\n")
    with pytest.raises(InvalidDataFileError, match="must not contain '.run'") as exc:
        generated.recipes()
    assert str(f) in str(exc.value)


def test_generator_rejecting_values_names_file_and_key(recipe_dir):
    f = _write(recipe_dir, "datasets:\n  fam: {generator: random_btl, params: {K: 1}, per_run_seed: 7}\n")
    generated.recipes()
    with pytest.raises(InvalidDataFileError) as exc:
        generated.load_instance("fam", 0)
    assert str(f) in str(exc.value) and "datasets.fam.params" in str(exc.value)


def test_sampled_recipe_cannot_take_a_family_as_parent(recipe_dir, tmp_path_factory, monkeypatch):
    _write(recipe_dir, "datasets:\n  fam: {generator: random_btl, params: {K: 6}, per_run_seed: 7}\n")
    _register()
    sdir = tmp_path_factory.mktemp("sampled")
    f = _write(sdir, "datasets:\n  sub: {parent: fam, K: 3, seed: 1}\n")
    monkeypatch.setattr(sampled, "sampled_dir", lambda: sdir)
    sampled.recipes.cache_clear()
    with pytest.raises(InvalidDataFileError) as exc:
        registry._register_sampled()
    assert str(f) in str(exc.value) and "datasets.sub.parent" in str(exc.value) and "family" in str(exc.value)
