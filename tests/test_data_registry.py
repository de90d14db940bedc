"""The dataset registry: names, metadata, loading, caching, errors, required files."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import duelbench
from duelbench.data import mslr, paper_matrices, registry
from duelbench.data.errors import DataUnavailableError, UnknownDatasetError
from duelbench.problems.matrix import PreferenceMatrix, TiedPairWarning

SMALL = registry.list_datasets(needs_mslr=False)
#: datasets transcribed or downloaded (the seeded "sampled" and "generated" kinds, declared by
#: experiments in data/sampled and data/generated, have tests of their own)
BASE_KINDS = ("printed", "submatrix", "mslr")


def _base(names):
    return [n for n in names if registry.DATASETS[n].kind in BASE_KINDS]


@pytest.fixture(autouse=True)
def _fresh_cache():
    registry.clear_cache()
    yield
    registry.clear_cache()


def test_names():
    assert _base(SMALL) == [
        "cyclic",
        "sushi",
        "gap",
        "multisol",
        "arxiv",
        "mslr5_condorcet_printed",
        "mslr5_noncondorcet_printed",
    ]
    assert _base(registry.list_datasets(needs_mslr=True)) == [
        "mslr5_condorcet",
        "mslr5_noncondorcet",
        "mslr_informational",
        "mslr_navigational",
        "mslr_perfect",
    ]
    assert sorted(registry.list_datasets()) == sorted(SMALL + registry.list_datasets(needs_mslr=True))


def test_metadata_consistent_with_provenance():
    for name, info in registry.DATASETS.items():
        assert info.name == name and info.description and info.origin
        if info.kind not in BASE_KINDS:
            continue
        if info.kind == "mslr":
            assert info.K == 136 and info.needs_mslr and name in mslr.MSLR_FILES
            continue
        doc = paper_matrices.read_provenance(name)
        assert doc["K"] == info.K and doc["kind"] == info.kind
        assert info.needs_mslr == (info.kind == "submatrix")
        if info.kind == "submatrix":
            assert str(doc["ranker_indices"]) in info.description


@pytest.mark.parametrize("name", [n for n in SMALL if registry.DATASETS[n].kind != "family"])  # families: one
def test_every_small_dataset_loads_and_validates(name):  # matrix per run (tests/test_data_families.py)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiedPairWarning)
        m = registry.load_matrix(name)
    assert isinstance(m, PreferenceMatrix)
    assert m.name == name and m.K == registry.DATASETS[name].K
    assert np.all(m.values + m.values.T == 1.0) and np.all(np.diag(m.values) == 0.5)
    assert not m.values.flags.writeable
    assert registry.required_files(name) == []


def test_cached_per_process():
    a = registry.load_matrix("sushi")
    assert registry.load_matrix("sushi") is a
    registry.clear_cache()
    assert registry.load_matrix("sushi") is not a and registry.load_matrix("sushi") == a


def test_top_level_reexport():
    assert duelbench.load_matrix("gap") is registry.load_matrix("gap")
    assert duelbench.list_datasets() == registry.list_datasets()


def test_arxiv_warns_about_its_printed_tie():
    with pytest.warns(TiedPairWarning, match="arxiv"):
        m = registry.load_matrix("arxiv")
    assert m.tied_pairs == ((3, 5),)


def test_sushi_names():
    m = registry.load_matrix("sushi")
    assert m.names[0] == "mildly fatty tuna" and m.names[-1] == "squilla"


def test_unknown_name_lists_valid_names():
    with pytest.raises(UnknownDatasetError) as ei:
        registry.load_matrix("sushii")
    msg = str(ei.value)
    assert "'sushii'" in msg
    for name in registry.DATASETS:
        assert name in msg
    with pytest.raises(LookupError):
        registry.dataset_info("nope")


def test_required_files(tmp_path):
    files = registry.required_files("mslr5_condorcet")
    assert [Path(f).name for f in files] == ["MSLR_Informational_PMat.npz"]
    assert registry.required_files("mslr_perfect", data_root="data") == [Path("data/mslr/MSLR_Perfect_PMat.npz")]


def test_mslr_dataset_unavailable_says_how_to_fix(tmp_path, monkeypatch):
    """Without local file, mirror or network, loading names the three ways to provide the file."""
    monkeypatch.setenv("DUELBENCH_DATA_DIR", str(tmp_path))
    monkeypatch.delenv(mslr.ENV_MIRROR, raising=False)
    monkeypatch.setattr(mslr, "DEFAULT_URL_BASE", "http://127.0.0.1:9/")  # discard port: refused
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    with pytest.raises(DataUnavailableError) as ei:
        registry.load_matrix("mslr5_noncondorcet")
    msg = str(ei.value)
    assert "DUELBENCH_DATA_MIRROR=" in msg and "fetch-data mslr_informational" in msg
    assert str(tmp_path / "mslr" / "MSLR_Informational_PMat.npz") in msg
