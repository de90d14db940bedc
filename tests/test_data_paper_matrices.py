"""The matrices transcribed from Komiyama et al. (ICML 2016), Tables 2 and 3 (paper 000).

Checks the transcription (token by token against the paper text when it is available), the
documented corrections, validation, and the facts recorded in the provenance YAML files,
re-computed here with plain numpy.
"""

from __future__ import annotations

import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from duelbench.data import paper_matrices as pmod
from duelbench.data.errors import InvalidDataFileError
from duelbench.data.paths import matrices_dir
from duelbench.problems.matrix import PreferenceMatrix, TiedPairWarning

PRINTED = [
    "cyclic",
    "sushi",
    "gap",
    "multisol",
    "arxiv",
    "mslr5_condorcet_printed",
    "mslr5_noncondorcet_printed",
]
EXPECTED_K = {
    "cyclic": 4,
    "sushi": 16,
    "gap": 5,
    "multisol": 5,
    "arxiv": 6,
    "mslr5_condorcet_printed": 5,
    "mslr5_noncondorcet_printed": 5,
}

CHECKOUT = Path(__file__).resolve().parent.parent
PAPERS_DIR = CHECKOUT.parent / "shared" / "papers"


# --------------------------------------------------------------------------- plain-numpy facts
def _facts(P: np.ndarray) -> dict:
    K = P.shape[0]
    off = ~np.eye(K, dtype=bool)
    wins = ((P > 0.5) & off).sum(axis=1)
    losses = ((P < 0.5) & off).sum(axis=1)
    cw = [i + 1 for i in range(K) if wins[i] == K - 1]
    return {
        "condorcet_winner": cw[0] if cw else None,
        "copeland_winners": [i + 1 for i in range(K) if losses[i] == losses.min()],
        "losses": losses.tolist(),
        "tied_pairs": [[i + 1, j + 1] for i in range(K) for j in range(i + 1, K) if P[i, j] == 0.5],
        "strict_order_in_printed_order": bool(all(P[i, j] > 0.5 for i in range(K) for j in range(i + 1, K))),
    }


@pytest.fixture(scope="module")
def printed():
    return {name: pmod.read_printed(name) for name in PRINTED}


# --------------------------------------------------------------------------- transcription
def test_matrices_dir_is_in_the_checkout():
    assert matrices_dir() == CHECKOUT / "data" / "matrices"


@pytest.mark.parametrize("name", PRINTED)
def test_shape_and_validation(name, printed):
    pm = printed[name]
    assert pm.values.shape == (EXPECTED_K[name],) * 2
    assert pm.provenance["K"] == EXPECTED_K[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TiedPairWarning)
        m = PreferenceMatrix(pm.values, atol=1e-12, source=str(pm.csv_path))
    # PreferenceMatrix keeps the upper triangle and re-derives p_ji = 1 - p_ij (last-bit changes only)
    iu = np.triu_indices(pm.values.shape[0], 1)
    np.testing.assert_array_equal(m.values[iu], pm.values[iu])
    np.testing.assert_allclose(m.values, pm.values, rtol=0, atol=1e-15)
    assert np.all(np.diag(pm.values) == 0.5)


@pytest.mark.parametrize("name", PRINTED)
def test_tokens_have_the_printed_precision(name, printed):
    pm = printed[name]
    decimals = pm.provenance["precision"]["decimals"]
    for row in pm.tokens:
        for tok in row:
            assert re.fullmatch(r"[01]\.\d{1,%d}" % decimals, tok), (name, tok)


@pytest.mark.parametrize("name", PRINTED)
def test_tokens_equal_the_paper_text(name, printed):
    """Token-by-token comparison with the paper-text lines recorded in the YAML."""
    src = printed[name].provenance["source"]
    paper = PAPERS_DIR / src["paper_file"]
    if not paper.is_file():
        pytest.skip(f"paper text not available at {paper}")
    lines = paper.read_text(encoding="utf-8").split("\n")
    first, last = src["lines"]
    rows = [lines[n - 1].split() for n in range(first, last + 1)]
    if src.get("row_labels_printed"):
        assert [r[0] for r in rows] == [str(i + 1) for i in range(len(rows))]
        rows = [r[1:] for r in rows]
    assert rows == printed[name].tokens


def test_arm_names_from_the_sushi_caption(printed):
    names = printed["sushi"].arm_names
    assert names[0] == "mildly fatty tuna" and names[-1] == "squilla" and len(set(names)) == 16
    paper = PAPERS_DIR / "000_f9a3afa5eda552a1.txt"
    if paper.is_file():
        caption = paper.read_text(encoding="utf-8").split("\n")[387 - 1]
        listed = re.findall(r"\d+\. ([^,]+?)(?:,|, respectively\.)", caption)
        assert [s.strip() for s in listed] == names


# --------------------------------------------------------------------------- corrections, ties
def test_e1_correction_applied(printed):
    pm = printed["mslr5_condorcet_printed"]
    assert pm.tokens[3][1] == "0.276"  # the CSV keeps the printed typo
    assert pm.values[3, 1] == 0.273  # the loader uses 1 - 0.727
    assert pm.values[1, 3] == 0.727
    (corr,) = pm.provenance["corrections"]
    assert corr["entry"] == [4, 2] and corr["printed"] == "0.276" and corr["corrected"] == "0.273"


def test_only_documented_corrections(printed):
    for name in PRINTED:
        if name != "mslr5_condorcet_printed":
            assert not printed[name].provenance["corrections"], name
            # uncorrected matrices are exactly antisymmetric as printed
            P = printed[name].values
            assert np.abs(P + P.T - 1).max() < 1e-12, name


def test_uncorrected_e1_matrix_is_rejected(tmp_path):
    """Without the correction the printed Table 3(e) fails validation (sum 1.003)."""
    _copy(tmp_path, "mslr5_condorcet_printed")
    y = tmp_path / "mslr5_condorcet_printed.yaml"
    text = y.read_text()
    y.write_text(text[: text.index("corrections:")] + "corrections: []\n" + text[text.index("cross_checks:") :])
    pm = pmod.read_printed("mslr5_condorcet_printed", tmp_path)
    from duelbench.problems.matrix import InvalidMatrixError

    with pytest.raises(InvalidMatrixError, match="p_ij \\+ p_ji"):
        PreferenceMatrix(pm.values, source=str(pm.csv_path))


def test_arxiv_tie_kept_and_warned(printed):
    P = printed["arxiv"].values
    assert P[3, 5] == 0.5 and P[5, 3] == 0.5
    with pytest.warns(TiedPairWarning):
        m = PreferenceMatrix(P)
    assert m.tied_pairs == ((3, 5),)


# --------------------------------------------------------------------------- documented facts
@pytest.mark.parametrize("name", PRINTED)
def test_recorded_facts(name, printed):
    recorded = dict(printed[name].provenance["facts"])
    assert _facts(printed[name].values) == recorded


def test_sushi_is_a_total_order(printed):
    P = printed["sushi"].values
    K = P.shape[0]
    assert all(P[i, j] > 0.5 for i in range(K) for j in range(i + 1, K))


def test_multisol_has_three_copeland_winners(printed):
    f = _facts(printed["multisol"].values)
    assert f["copeland_winners"] == [1, 2, 3] and f["condorcet_winner"] is None


def test_cyclic_caption(printed):
    """Table 2 caption (line 137): the Copeland (Condorcet) winner is arm 1."""
    f = _facts(printed["cyclic"].values)
    assert f["condorcet_winner"] == 1 and f["copeland_winners"] == [1]


def test_condorcet_status_as_stated(printed):
    """Paper 000 line 303: Sushi has a Condorcet winner, Gap / MultiSol / MSLR non-Condorcet do not."""
    cw = {n: _facts(printed[n].values)["condorcet_winner"] for n in PRINTED}
    assert cw["sushi"] == 1 and cw["mslr5_condorcet_printed"] == 1 and cw["arxiv"] == 1
    assert cw["gap"] is None and cw["multisol"] is None and cw["mslr5_noncondorcet_printed"] is None


def test_mslr5_noncondorcet_three_winners_in_a_cycle(printed):
    """Wu & Liu 2016, Figure 1(b): 3 Copeland winners, normalised Copeland score 3/4."""
    P = printed["mslr5_noncondorcet_printed"].values
    assert _facts(P)["copeland_winners"] == [1, 2, 3]
    assert P[0, 2] > 0.5 and P[2, 1] > 0.5 and P[1, 0] > 0.5
    wins = ((P > 0.5) & ~np.eye(5, dtype=bool)).sum(axis=1)
    assert list(wins[:3] / 4) == [0.75, 0.75, 0.75]


# --------------------------------------------------------------------------- error handling
def _copy(dest: Path, name: str) -> None:
    src = matrices_dir()
    for f in (f"{name}.yaml", f"{name}.csv"):
        if (src / f).exists():
            shutil.copy(src / f, dest / f)


def test_non_square_csv_names_file_and_line(tmp_path):
    _copy(tmp_path, "gap")
    csv = tmp_path / "gap.csv"
    lines = csv.read_text().splitlines()
    lines[-1] = lines[-1] + ",0.5"
    csv.write_text("\n".join(lines) + "\n")
    with pytest.raises(InvalidDataFileError, match=r"gap\.csv:\d+: row has 6 entries"):
        pmod.read_printed("gap", tmp_path)


def test_bad_token_names_entry(tmp_path):
    _copy(tmp_path, "gap")
    csv = tmp_path / "gap.csv"
    csv.write_text(csv.read_text().replace("0.51", "O.51"))
    with pytest.raises(InvalidDataFileError, match=r"gap\.csv: entry \(row 1, column 4\) = 'O\.51'"):
        pmod.read_printed("gap", tmp_path)


def test_correction_must_match_printed_token(tmp_path):
    _copy(tmp_path, "mslr5_condorcet_printed")
    csv = tmp_path / "mslr5_condorcet_printed.csv"
    csv.write_text(csv.read_text().replace("0.243,0.276", "0.243,0.273"))
    with pytest.raises(InvalidDataFileError, match="expects the printed token '0.276'"):
        pmod.read_printed("mslr5_condorcet_printed", tmp_path)


def test_missing_provenance_file(tmp_path):
    with pytest.raises(InvalidDataFileError, match=r"nothere\.yaml not found.*DUELBENCH_ROOT"):
        pmod.read_printed("nothere", tmp_path)


def test_k_mismatch(tmp_path):
    _copy(tmp_path, "gap")
    y = tmp_path / "gap.yaml"
    y.write_text(y.read_text().replace("K: 5", "K: 6"))
    with pytest.raises(InvalidDataFileError, match="says K = 6"):
        pmod.read_printed("gap", tmp_path)


# --------------------------------------------------------------------------- submatrix search
def test_find_submatrix_recovers_a_planted_submatrix():
    rng = np.random.default_rng(12345)
    n = 60
    U = rng.uniform(0.05, 0.95, size=(n, n))
    F = np.triu(U, 1) + np.tril(1 - U.T, -1)
    np.fill_diagonal(F, 0.5)
    idx = (41, 7, 13, 0, 59)
    T = np.round(F[np.ix_(idx, idx)], 3)
    assert pmod.find_submatrix(F, T) == [idx]
    assert pmod.submatrix_deviation(F, idx, T) <= 0.0005
    # an unconstrained (NaN) entry still finds it; a wrong entry does not
    T2 = T.copy()
    T2[3, 1] = np.nan
    assert idx in pmod.find_submatrix(F, T2)
    T3 = T.copy()
    T3[3, 1] += 0.003
    assert pmod.find_submatrix(F, T3) == []


def test_find_submatrix_rejects_bad_shapes():
    with pytest.raises(ValueError, match="square"):
        pmod.find_submatrix(np.zeros((3, 4)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="no larger"):
        pmod.find_submatrix(np.zeros((3, 3)), np.zeros((4, 4)))
