"""Tests of duelbench.problems.matrix (validation, storage, identity, re-indexing)."""

from __future__ import annotations

import hashlib
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

from duelbench.problems import InvalidMatrixError, PreferenceMatrix, TiedPairWarning
from duelbench.problems import winners

# Komiyama et al. 2016 Table 2 ("Cyclic"), paper 000 L139-143
CYCLIC = [
    [0.5, 0.6, 0.6, 0.6],
    [0.4, 0.5, 0.9, 0.1],
    [0.4, 0.1, 0.5, 0.9],
    [0.4, 0.9, 0.1, 0.5],
]


def _no_warnings():
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("error")
    return ctx


# --------------------------------------------------------------------------- valid input
def test_basic_properties():
    P = PreferenceMatrix(CYCLIC, name="table2_cyclic")
    assert P.K == 4
    assert P.names == ("1", "2", "3", "4")
    assert P.name == "table2_cyclic"
    assert P.values.dtype == np.float64
    assert P.values.shape == (4, 4)
    np.testing.assert_allclose(P.values, np.array(CYCLIC), rtol=0, atol=1e-15)
    # upper triangle as given, lower triangle re-derived: 1 - 0.9 != 0.1 in float64
    assert P.values[1, 2] == 0.9 and P.values[2, 1] == 1.0 - 0.9
    assert not P.has_ties and P.tied_pairs == ()


def test_values_read_only_and_not_aliased():
    src = np.array(CYCLIC)
    P = PreferenceMatrix(src)
    with pytest.raises(ValueError):
        P.values[0, 1] = 0.7
    src[0, 1] = 0.99  # mutating the input must not change the matrix
    assert P.values[0, 1] == 0.6
    with pytest.raises(AttributeError):
        P.values = np.eye(4)


def test_lower_triangle_derived_from_upper_bitwise():
    rng = np.random.default_rng(3)
    K = 40
    U = rng.random((K, K))
    A = np.triu(U, 1)
    A = A + np.tril(1.0 - A.T, -1)
    # perturb the lower triangle by a few ulps (within atol): it must be re-derived
    A[np.tril_indices(K, -1)] = np.nextafter(A[np.tril_indices(K, -1)], 2.0)
    np.fill_diagonal(A, 0.5)
    P = PreferenceMatrix(A)
    V = P.values
    iu = np.triu_indices(K, 1)
    np.testing.assert_array_equal(V[iu], A[iu])  # upper triangle kept
    assert np.array_equal(V.T[iu], 1.0 - V[iu])  # lower = 1 - upper, bit for bit
    assert np.all(V + V.T == 1.0)  # exact antisymmetry
    assert np.all(np.diagonal(V) == 0.5)


def test_diagonal_within_atol_is_set_exactly():
    A = np.array(CYCLIC)
    A[1, 1] = 0.5 + 1e-12
    A[2, 3] = 0.9 + 1e-12  # p_23 + p_32 = 1 + 1e-12
    P = PreferenceMatrix(A)
    assert P.values[1, 1] == 0.5
    assert P.values[3, 2] == 1.0 - P.values[2, 3]


def test_custom_names():
    P = PreferenceMatrix(CYCLIC, names=["a", "b", "c", "d"])
    assert P.names == ("a", "b", "c", "d")
    with pytest.raises(ValueError, match="names"):
        PreferenceMatrix(CYCLIC, names=["a", "b"])
    with pytest.raises(ValueError, match="unique"):
        PreferenceMatrix(CYCLIC, names=["a", "a", "c", "d"])


# --------------------------------------------------------------------------- malformed input
def _bad(values, **kw):
    with pytest.raises(InvalidMatrixError) as ei:
        PreferenceMatrix(values, **kw)
    return str(ei.value)


@pytest.mark.parametrize(
    "values, problem, detail",
    [
        ([0.5, 0.5], "not 2-D", "shape (2,)"),
        (np.full((2, 2, 2), 0.5), "not 2-D", "3 dimension"),
        ([[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]], "not square", "(2, 3)"),
        ([[0.5]], "too few arms", "K = 1"),
        (np.zeros((0, 0)), "too few arms", "K = 0"),
        ([[0.5, np.nan], [0.5, 0.5]], "non-finite", "(i=0, j=1) = nan"),
        ([[0.5, 0.5], [np.inf, 0.5]], "non-finite", "(i=1, j=0) = inf"),
        ([[0.5, 1.2], [-0.2, 0.5]], "outside [0, 1]", "(i=0, j=1) = 1.2"),
        ([[0.5, 0.3], [0.7, 0.4]], "diagonal entry is not 1/2", "(i=1, j=1) = 0.4"),
        ([[0.5, 0.6, 0.5], [0.3, 0.5, 0.5], [0.5, 0.5, 0.5]], "p_ij + p_ji != 1", "(i=0, j=1) = 0.6"),
        ([["a", "b"], ["c", "d"]], "not numbers", "float64"),
    ],
)
def test_malformed_input_raises_with_clear_message(values, problem, detail):
    msg = _bad(values)
    assert problem in msg
    assert detail in msg
    assert "Fix:" in msg


def test_antisymmetry_message_names_both_entries_and_sum():
    msg = _bad([[0.5, 0.6, 0.5], [0.3, 0.5, 0.5], [0.5, 0.5, 0.5]])
    assert "(j=1, i=0) = 0.3" in msg
    assert "sum to 0.899" in msg  # the sum
    assert "1 - p_ij" in msg  # the fix


def test_error_names_source():
    msg = _bad([[0.5, 0.7], [0.7, 0.5]], source="data/foo.csv")
    assert "data/foo.csv" in msg
    assert "source" not in _bad([[0.5, 0.7], [0.7, 0.5]])


def test_invalid_matrix_error_is_value_error():
    assert issubclass(InvalidMatrixError, ValueError)
    assert issubclass(TiedPairWarning, UserWarning)


def test_atol():
    A = np.array([[0.5, 0.6], [0.4 + 1e-7, 0.5]])
    _bad(A)  # default atol = 1e-9
    P = PreferenceMatrix(A, atol=1e-6)
    assert P.values[1, 0] == 1.0 - 0.6
    with pytest.raises(ValueError):
        PreferenceMatrix(CYCLIC, atol=-1.0)


# --------------------------------------------------------------------------- ties
def test_tie_warns_and_names_pairs():
    A = np.array(CYCLIC)
    A[1, 3] = A[3, 1] = 0.5
    with pytest.warns(TiedPairWarning, match=r"\(1, 3\)"):
        P = PreferenceMatrix(A, name="tied")
    assert P.tied_pairs == ((1, 3),)
    assert P.has_ties


def test_tie_rejected_with_allow_ties_false():
    A = np.array(CYCLIC)
    A[1, 3] = A[3, 1] = 0.5
    msg = _bad(A, allow_ties=False)
    assert "tie" in msg and "(1, 3)" in msg and "allow_ties" in msg


def test_no_warning_without_ties():
    ctx = _no_warnings()
    try:
        PreferenceMatrix(CYCLIC)
    finally:
        ctx.__exit__(None, None, None)


# --------------------------------------------------------------------------- identity, equality
def test_identity_is_name_or_sha256():
    P = PreferenceMatrix(CYCLIC)
    A = np.array(CYCLIC, dtype="<f8")
    A[2, 1] = A[3, 2] = 1.0 - 0.9  # stored lower triangle
    expected = hashlib.sha256(A.tobytes()).hexdigest()
    assert P.identity == "sha256:" + expected
    assert PreferenceMatrix(CYCLIC, name="cyc").identity == "cyc"


def test_identity_stable_across_processes():
    code = (
        "from duelbench.problems import PreferenceMatrix;"
        f"print(PreferenceMatrix({CYCLIC!r}).identity)"
    )
    outs = set()
    for seed in ("0", "12345"):
        r = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        )
        outs.add(r.stdout.strip())
    assert outs == {PreferenceMatrix(CYCLIC).identity}


def test_identity_changes_with_content():
    A = np.array(CYCLIC)
    A[0, 1], A[1, 0] = 0.61, 0.39
    assert PreferenceMatrix(A).identity != PreferenceMatrix(CYCLIC).identity


def test_eq_and_hash():
    P1 = PreferenceMatrix(CYCLIC)
    P2 = PreferenceMatrix(np.array(CYCLIC))
    assert P1 == P2 and hash(P1) == hash(P2)
    assert len({P1, P2}) == 1
    assert P1 != PreferenceMatrix(CYCLIC, name="x")
    assert P1 != PreferenceMatrix(CYCLIC, names="abcd")
    A = np.array(CYCLIC)
    A[0, 1], A[1, 0] = 0.61, 0.39
    assert P1 != PreferenceMatrix(A)
    assert P1 != np.array(CYCLIC)


def test_repr():
    r = repr(PreferenceMatrix(CYCLIC, name="table2_cyclic"))
    assert "K=4" in r and "table2_cyclic" in r


def test_pickle_roundtrip():
    P = PreferenceMatrix(CYCLIC, name="c", names="abcd")
    Q = pickle.loads(pickle.dumps(P))
    assert Q == P and Q.identity == P.identity
    assert not Q.values.flags.writeable


def test_asarray():
    P = PreferenceMatrix(CYCLIC)
    np.testing.assert_array_equal(np.asarray(P), P.values)


# --------------------------------------------------------------------------- re-indexing
def test_submatrix():
    P = PreferenceMatrix(CYCLIC, names="abcd", name="parent")
    S = P.submatrix([3, 1])
    assert S.K == 2
    assert S.names == ("d", "b")
    assert S.values[0, 1] == P.values[3, 1] and S.values[1, 0] == P.values[1, 3]
    assert np.all(S.values + S.values.T == 1.0)
    assert S.name is None and S.identity.startswith("sha256:")
    assert P.submatrix([3, 1], name="s").identity == "s"
    assert not S.values.flags.writeable


@pytest.mark.parametrize("idx, exc", [([0], ValueError), ([0, 0], ValueError), ([0, 4], IndexError), ([-1, 0], IndexError), ([0.0, 1.0], TypeError)])
def test_submatrix_bad_indices(idx, exc):
    with pytest.raises(exc):
        PreferenceMatrix(CYCLIC).submatrix(idx)


def test_permuted_bitwise_and_inverse():
    rng = np.random.default_rng(0)
    K = 12
    U = np.triu(rng.random((K, K)), 1)
    P = PreferenceMatrix(U + np.tril(1 - U.T, -1) + 0.5 * np.eye(K))
    perm = rng.permutation(K)
    Q = P.permuted(perm)
    assert np.array_equal(Q.values, P.values[np.ix_(perm, perm)])
    assert Q.names == tuple(P.names[k] for k in perm)
    assert np.all(Q.values + Q.values.T == 1.0)
    assert Q.permuted(np.argsort(perm)) == P
    with pytest.raises(ValueError):
        P.permuted([0, 0] + list(range(2, K)))
    with pytest.raises(ValueError):
        P.permuted(range(K - 1))


def test_convenience_methods_delegate():
    P = PreferenceMatrix(CYCLIC)
    assert P.condorcet_winner() == winners.condorcet_winner(P.values) == 0
    assert P.has_condorcet_winner()
    assert P.copeland_winners() == (0,)
    np.testing.assert_array_equal(P.copeland_scores(), [3, 1, 1, 1])
    np.testing.assert_array_equal(P.losses(), [0, 2, 2, 2])
    np.testing.assert_allclose(P.normalized_copeland_scores(), [1, 1 / 3, 1 / 3, 1 / 3])
    assert P.borda_winners() == (0,)
    assert P.von_neumann_support() == (0,)
    assert P.random_walk_winners() == winners.random_walk_winners(P.values)
    np.testing.assert_array_equal(P.regret_matrix("copeland_wu"), P.regret_matrix())


def test_square_values_accepts_matrices_and_arrays_and_names_the_shape():
    from duelbench.problems.matrix import square_values

    a = np.array([[0.5, 0.75], [0.25, 0.5]])  # exact in binary: stored as given
    pm = PreferenceMatrix(a)
    assert np.array_equal(square_values(pm), a)
    assert square_values(a) is a  # float64, C-contiguous: no copy
    f = square_values(np.asfortranarray(a))
    assert f.flags.c_contiguous and np.array_equal(f, a)
    assert square_values([[0.5]], min_arms=1).shape == (1, 1)
    with pytest.raises(ValueError, match=r"K >= 2, got shape \(1, 1\)"):
        square_values([[0.5]])
    with pytest.raises(ValueError, match=r"got shape \(2, 3\)"):
        square_values(np.full((2, 3), 0.5))
