"""Documented facts about the 136x136 MSLR matrices and the 5-arm submatrices.

* Zoghi et al. 2015 (paper 001), App. B, line 416: with the informational click model the full
  matrix has no Condorcet winner; with the navigational and perfect models it has one.
* The 5-arm matrices printed in Komiyama et al. 2016 (paper 000), Table 3(e)(f), lines 433-445,
  are submatrices of the informational matrix up to rounding to 3 decimals (0.0005), allowing the
  correction of entry (4,2) of Table 3(e) (printed 0.276 at line 436, but mu_24 = 0.727 at
  line 434).

Needs the MSLR files: the ``mslr_mirror`` fixture (conftest) resolves ``$DUELBENCH_DATA_MIRROR``
or ``<checkout>/../shared/data/mslr`` and skips otherwise.
"""

from __future__ import annotations

import numpy as np
import pytest

from duelbench.data import mslr, paper_matrices, registry

ROUND_TOL = 0.0005 + 1e-9

# Full-precision values of the 5-arm Condorcet matrix as published in Wu & Liu's public code
# (file DuelingBandit/data/MSLR_Informational_5_Condorcet.txt of
# https://github.com/HuasenWu/DuelingBandits).
WU_LIU_CONDORCET = np.array(
    [
        [0.5, 0.53519466, 0.6125935, 0.75696008, 0.76547422],
        [0.46480534, 0.5, 0.57985831, 0.72745116, 0.73820053],
        [0.3874065, 0.42014169, 0.5, 0.65895708, 0.66877089],
        [0.24303992, 0.27254884, 0.34104292, 0.5, 0.50999465],
        [0.23452578, 0.26179947, 0.33122911, 0.49000535, 0.5],
    ]
)


@pytest.fixture(scope="module")
def pmats(mslr_mirror, tmp_path_factory):
    """Raw PMat arrays of the three files, installed from the mirror into a temporary folder."""
    dest = tmp_path_factory.mktemp("mslr")
    out = {}
    for name in mslr.MSLR_FILES:
        path = mslr.fetch(name, dest, mirror=mslr_mirror, url_base="http://127.0.0.1:9/", timeout=2)
        with np.load(path, allow_pickle=False) as z:
            assert z.files == ["PMat"]
            out[name] = z["PMat"]
    return out


@pytest.fixture
def registry_with_mirror(mslr_mirror, tmp_path, monkeypatch):
    """The registry reading MSLR data from a temporary data folder filled from the mirror."""
    monkeypatch.setenv("DUELBENCH_DATA_DIR", str(tmp_path))
    monkeypatch.setenv(mslr.ENV_MIRROR, str(mslr_mirror))
    registry.clear_cache()
    yield registry
    registry.clear_cache()


def _condorcet_winners(P: np.ndarray) -> list[int]:
    """Arms i with P[i, j] > 0.5 for every j != i (plain numpy)."""
    K = P.shape[0]
    beats = (P > 0.5) | np.eye(K, dtype=bool)
    return np.flatnonzero(beats.all(axis=1)).tolist()


def _printed(name: str) -> np.ndarray:
    return paper_matrices.read_printed(name).values


# --------------------------------------------------------------------------- the full matrices
@pytest.mark.parametrize("name", list(mslr.MSLR_FILES))
def test_shape_and_antisymmetry(pmats, name):
    P = pmats[name]
    assert P.shape == (136, 136) and P.dtype == np.float64
    assert np.all(P + P.T == 1.0)  # exactly, as stated in the mirror's README
    assert np.all(np.diag(P) == 0.5)
    assert np.all((P >= 0) & (P <= 1))
    off = ~np.eye(136, dtype=bool)
    assert not np.any(P[off] == 0.5)  # no off-diagonal ties


def test_informational_has_no_condorcet_winner(pmats):
    assert _condorcet_winners(pmats["mslr_informational"]) == []


@pytest.mark.parametrize("name", ["mslr_navigational", "mslr_perfect"])
def test_navigational_and_perfect_have_a_condorcet_winner(pmats, name):
    assert len(_condorcet_winners(pmats[name])) == 1


# --------------------------------------------------------------------------- 5-arm submatrices
@pytest.mark.parametrize(
    "full_name, printed_name", [("mslr5_condorcet", "mslr5_condorcet_printed"), ("mslr5_noncondorcet", "mslr5_noncondorcet_printed")]
)
def test_printed_matrices_are_rounded_submatrices(pmats, full_name, printed_name):
    doc = paper_matrices.read_provenance(full_name)
    idx = doc["ranker_indices"]
    P = pmats[doc["parent"]]
    T = _printed(printed_name)  # with the Table 3(e) correction (4,2): 0.276 -> 0.273 applied
    sub = P[np.ix_(idx, idx)]
    dev = paper_matrices.submatrix_deviation(P, idx, T)
    assert dev <= ROUND_TOL
    assert round(dev, 6) == doc["search"]["max_abs_deviation"]
    # re-rounding the submatrix gives the printed 3-decimal values
    off = ~np.eye(5, dtype=bool)
    assert np.all(np.abs(np.round(sub, 3) - T)[off] < 1e-9)


def test_e1_entry_is_the_only_deviation(pmats):
    """Against the uncorrected printed Table 3(e), only entry (4,2) is off (0.27254884 vs 0.276)."""
    idx = paper_matrices.read_provenance("mslr5_condorcet")["ranker_indices"]
    sub = pmats["mslr_informational"][np.ix_(idx, idx)]
    pm = paper_matrices.read_printed("mslr5_condorcet_printed")
    raw = np.array([[float(t) for t in row] for row in pm.tokens])
    bad = np.argwhere(np.abs(sub - raw) > ROUND_TOL)
    assert bad.tolist() == [[3, 1]]
    assert abs(sub[3, 1] - 0.273) <= ROUND_TOL


@pytest.mark.parametrize("full_name", ["mslr5_condorcet", "mslr5_noncondorcet"])
def test_search_finds_the_recorded_indices_uniquely(pmats, full_name):
    doc = paper_matrices.read_provenance(full_name)
    T = _printed(doc["printed"])
    found = paper_matrices.find_submatrix(pmats[doc["parent"]], T)
    assert found == [tuple(doc["ranker_indices"])]
    assert doc["search"]["matches"] == 1


def test_uncorrected_table_3e_matches_no_submatrix(pmats):
    pm = paper_matrices.read_printed("mslr5_condorcet_printed")
    raw = np.array([[float(t) for t in row] for row in pm.tokens])
    assert paper_matrices.find_submatrix(pmats["mslr_informational"], raw) == []


def test_condorcet_submatrix_equals_published_full_precision(pmats):
    idx = paper_matrices.read_provenance("mslr5_condorcet")["ranker_indices"]
    sub = pmats["mslr_informational"][np.ix_(idx, idx)]
    np.testing.assert_allclose(sub, WU_LIU_CONDORCET, rtol=0, atol=5e-9)


# --------------------------------------------------------------------------- through the registry
def test_registry_loads_mslr_datasets(registry_with_mirror, tmp_path):
    reg = registry_with_mirror
    for name in reg.list_datasets(needs_mslr=True):
        m = reg.load_matrix(name)
        assert m.name == name and m.K == reg.DATASETS[name].K
        assert np.all(m.values + m.values.T == 1.0)
    assert (tmp_path / "mslr" / "MSLR_Informational_PMat.npz").is_file()
    assert reg.load_matrix("mslr_informational") is reg.load_matrix("mslr_informational")  # cached


def test_registry_mslr5_facts(registry_with_mirror):
    reg = registry_with_mirror
    for name in ("mslr5_condorcet", "mslr5_noncondorcet"):
        m = reg.load_matrix(name)
        facts = paper_matrices.read_provenance(name)["facts"]
        cw = _condorcet_winners(m.values)
        assert (cw[0] + 1 if cw else None) == facts["condorcet_winner"]
        losses = ((m.values < 0.5) & ~np.eye(5, dtype=bool)).sum(axis=1)
        assert losses.tolist() == facts["losses"]
    # the full-precision matrix is the submatrix, bit for bit
    full = reg.load_matrix("mslr_informational").values
    idx = paper_matrices.read_provenance("mslr5_noncondorcet")["ranker_indices"]
    sub = reg.load_matrix("mslr5_noncondorcet")
    np.testing.assert_array_equal(sub.values, full[np.ix_(idx, idx)])
    assert sub.names == tuple(f"ranker{i}" for i in idx)
    assert reg.load_matrix("mslr_informational").names[:2] == ("ranker0", "ranker1")
