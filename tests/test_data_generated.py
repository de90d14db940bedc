"""Generated datasets: recipes in data/generated/*.yaml, registry kind "generated", errors."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import duelbench
from duelbench.data import generated, registry
from duelbench.data.errors import InvalidDataFileError
from duelbench.problems.generators import copeland_cycle_plus_order

NAMES = ["zoghi_copeland500", "zoghi_copeland500_g02", "zoghi_copeland500_g04"]


@pytest.fixture
def recipe_dir(tmp_path, monkeypatch):
    """A temporary data/generated folder; caches are reset before and after."""
    monkeypatch.setattr(generated, "generated_dir", lambda: tmp_path)
    generated.recipes.cache_clear()
    generated.load_generated.cache_clear()
    yield tmp_path
    generated.recipes.cache_clear()
    generated.load_generated.cache_clear()


def _write(folder, text, name="paper.yaml"):
    f = folder / name
    f.write_text(textwrap.dedent(text))
    return f


def test_declared_recipes_registered():
    recipes = generated.recipes()
    assert set(NAMES) <= set(recipes)
    r = recipes["zoghi_copeland500"]
    assert r.generator == "copeland_cycle_plus_order"
    assert r.params == {"n_winners": 3, "n_others": 497, "g_w": 0.1, "g_wn": 0.1, "g_nn": 0.1}
    assert r.file.endswith("data/generated/zoghi2015.yaml") and "L397" in r.origin
    for name in NAMES:
        info = registry.dataset_info(name)
        assert info.kind == "generated" and info.K == 500 and not info.needs_mslr
        assert name in registry.list_datasets(needs_mslr=False)
        assert registry.required_files(name) == []


def test_load_matrix_builds_the_recipe():
    registry.clear_cache()
    P = duelbench.load_matrix("zoghi_copeland500_g02")
    assert P.name == "zoghi_copeland500_g02" and P.identity == "zoghi_copeland500_g02"
    assert np.array_equal(P.values, copeland_cycle_plus_order(3, 497, 0.2, 0.2, 0.2).values)
    assert duelbench.load_matrix("zoghi_copeland500_g02") is P  # cached
    registry.clear_cache()
    assert duelbench.load_matrix("zoghi_copeland500_g02") is not P


def test_valid_recipe_in_another_file(recipe_dir):
    _write(recipe_dir, """
        datasets:
          tiny_cycle: {generator: copeland_cycle_plus_order, params: {n_winners: 3, n_others: 2}}
          tiny_btl: {generator: btl, params: {utilities: [1.0, 2.0, 3.0]}, description: three arms}
    """)
    r = generated.recipes()
    assert sorted(r) == ["tiny_btl", "tiny_cycle"]
    assert generated.load_generated("tiny_cycle").K == 5 and generated.generated_K("tiny_btl") == 3
    assert generated.load_generated("tiny_btl").name == "tiny_btl"


@pytest.mark.parametrize("body,key", [
    ("{generator: nope, params: {}}", "datasets.bad.generator"),
    ("{generator: _from_upper, params: {}}", "datasets.bad.generator"),  # not in __all__
    ("{params: {n_winners: 3}}", "datasets.bad: unknown keys [] / missing keys ['generator']"),
    ("{generator: copeland_cycle_plus_order, seed: 3}", "datasets.bad: unknown keys ['seed']"),
    ("{generator: copeland_cycle_plus_order, params: {n_arms: 3}}", "datasets.bad.params"),
    ("{generator: copeland_cycle_plus_order, params: [1, 2]}", "datasets.bad.params"),
    ("{generator: copeland_cycle_plus_order, params: {name: x}}", "datasets.bad.params.name"),
    ("{generator: copeland_cycle_plus_order, params: {g_w: {a: 1}}}", "datasets.bad.params.g_w"),
    ("[1, 2]", "datasets.bad: expected a mapping"),
])
def test_invalid_recipes_name_file_and_key(recipe_dir, body, key):
    f = _write(recipe_dir, f"datasets:\n  bad: {body}\n")
    with pytest.raises(InvalidDataFileError) as exc:
        generated.recipes()
    assert str(f) in str(exc.value) and key in str(exc.value)


def test_values_rejected_by_the_generator_name_file_and_key(recipe_dir):
    f = _write(recipe_dir, "datasets:\n  bad: {generator: copeland_cycle_plus_order, params: {g_w: 0.7}}\n")
    generated.recipes()  # the parameter names bind; the value is checked when the matrix is built
    with pytest.raises(InvalidDataFileError) as exc:
        generated.load_generated("bad")
    msg = str(exc.value)
    assert str(f) in msg and "datasets.bad.params" in msg and "g_w must lie in (0, 0.5]" in msg


def test_duplicate_names_and_invalid_yaml(recipe_dir):
    _write(recipe_dir, "datasets:\n  x: {generator: btl, params: {utilities: [1, 2]}}\n", "a.yaml")
    f = _write(recipe_dir, "datasets:\n  x: {generator: btl, params: {utilities: [1, 3]}}\n", "b.yaml")
    with pytest.raises(InvalidDataFileError, match="also declared in"):
        generated.recipes()
    f.write_text("datasets: [unclosed\n")
    generated.recipes.cache_clear()
    with pytest.raises(InvalidDataFileError, match="not valid YAML"):
        generated.recipes()
    f.write_text("- just a list\n")
    generated.recipes.cache_clear()
    with pytest.raises(InvalidDataFileError, match="top-level mapping"):
        generated.recipes()


def test_missing_folder_means_no_recipes(recipe_dir, monkeypatch):
    monkeypatch.setattr(generated, "generated_dir", lambda: recipe_dir / "absent")
    generated.recipes.cache_clear()
    assert generated.recipes() == {}
