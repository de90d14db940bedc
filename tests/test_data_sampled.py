"""Seeded random submatrices declared in data/sampled/*.yaml."""

import numpy as np
import pytest

from duelbench.data import registry, sampled
from duelbench.data.errors import InvalidDataFileError


def test_recipes_are_registered_with_their_parent_requirements():
    for name, r in sampled.recipes().items():
        info = registry.dataset_info(name)
        assert info.kind == "sampled" and info.K == r.K
        assert info.needs_mslr == registry.dataset_info(r.parent).needs_mslr


def test_sampled_matrix_respects_its_recipe(mslr_mirror):
    name = "kom_mslr16_noncondorcet"
    r = sampled.recipes()[name]
    P = registry.load_matrix(name)
    idx = sampled.sampled_indices(name)
    parent = registry.load_matrix(r.parent)
    assert P.name == name and P.K == r.K == len(idx) and list(idx) == sorted(idx)
    assert np.array_equal(P.values, parent.values[np.ix_(idx, idx)])
    off = ~np.eye(r.K, dtype=bool)
    assert np.all(np.abs(P.values[off] - 0.5) >= r.min_gap)
    assert (P.condorcet_winner() is not None) == r.condorcet
    registry.clear_cache()
    assert sampled.sampled_indices(name) == idx  # same seed, same draw


def test_malformed_recipe_names_file_and_key(tmp_path):
    f = tmp_path / "x.yaml"
    with pytest.raises(InvalidDataFileError, match=r"x.yaml: datasets.bad: unknown keys \['colour'\]"):
        sampled._parse("bad", {"parent": "mslr_informational", "K": 5, "seed": 1, "colour": 2}, f)
    with pytest.raises(InvalidDataFileError, match="condorcet must be true, false or null"):
        sampled._parse("bad", {"parent": "p", "K": 5, "seed": 1, "condorcet": "yes"}, f)
    with pytest.raises(InvalidDataFileError, match="K must be an integer"):
        sampled._parse("bad", {"parent": "p", "K": 1, "seed": 1}, f)
