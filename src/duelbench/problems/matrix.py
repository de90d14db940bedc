"""Validated, immutable preference matrices.

A *preference matrix* ``P = [p_ij]`` of a K-armed dueling bandit problem holds
the probability ``p_ij`` that arm ``i`` beats arm ``j`` in one comparison.  The
model of all replicated papers (paper 000 L65, paper 001 L40, paper 004 §1)
requires

* ``p_ij`` in [0, 1],
* ``p_ii = 1/2``,
* ``p_ij + p_ji = 1``.

Paper 000 L65 and paper 001 (Assumption A, L139-141) additionally assume no
off-diagonal ties (``p_ij != 1/2``).  Ties do occur in practice (the ArXiv
matrix of paper 000 Table 3(d) has ``p_46 = p_64 = 0.50``, and the SYN-CD
instance of paper 003 is built from ties), so :class:`PreferenceMatrix`
accepts them by default and emits a :class:`TiedPairWarning`; pass
``allow_ties=False`` to reject them.

Storage convention (decision)
-----------------------------
After validation the strict upper triangle (``i < j``) of the input is the
source of truth; the lower triangle is *re-derived* as ``p_ji = 1 - p_ij`` in
float64 and the diagonal is set to exactly 0.5.  For every float64 ``x`` in
[0, 1], ``x + fl(1 - x) == 1.0`` holds exactly, so the stored matrix satisfies
``values + values.T == 1.0`` bit for bit.  A lower-triangle input entry that
was not itself computed as ``1 - p_ij`` may therefore change in its last bit
(e.g. about a third of the entries of the 136x136 MSLR file).  Submatrices and
permutations are plain re-indexings of an already stored matrix: their entries
are bitwise those of the parent, and the exact antisymmetry is preserved
because it holds for a pair ``(x, fl(1 - x))`` in either orientation.

Indices are 0-based everywhere in code; error messages say so.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Sequence

import numpy as np

__all__ = ["PreferenceMatrix", "InvalidMatrixError", "TiedPairWarning", "square_values"]


class InvalidMatrixError(ValueError):
    """A preference matrix failed validation.

    The message names the problem, the offending entry (0-based ``i, j`` and
    the values involved), the fix, and the data source if one was given.
    """


class TiedPairWarning(UserWarning):
    """A preference matrix contains exact off-diagonal ties ``p_ij == 1/2``."""


_MAX_LISTED = 10  # how many offending pairs a message lists before "..."


def _where(source: str | None) -> str:
    return f" (source: {source})" if source else ""


def _fail(problem: str, detail: str, fix: str, source: str | None) -> InvalidMatrixError:
    return InvalidMatrixError(f"invalid preference matrix{_where(source)}: {problem}: {detail}. Fix: {fix}")


def _format_pairs(pairs: Sequence[tuple[int, int]]) -> str:
    shown = ", ".join(f"({i}, {j})" for i, j in pairs[:_MAX_LISTED])
    if len(pairs) > _MAX_LISTED:
        shown += f", ... ({len(pairs)} pairs in total)"
    return shown


def _validate(values, allow_ties: bool, atol: float, source: str | None) -> tuple[np.ndarray, list]:
    """Validate ``values`` and return (stored array, list of tied pairs i < j)."""
    try:
        a = np.array(values, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as exc:
        raise _fail(
            "entries are not numbers",
            f"could not convert the input to a float64 array ({exc})",
            "pass a square array-like of probabilities",
            source,
        ) from None
    if a.ndim != 2:
        raise _fail(
            "matrix is not 2-D",
            f"got an array with {a.ndim} dimension(s) and shape {a.shape}",
            "pass a K x K array with K >= 2",
            source,
        )
    if a.shape[0] != a.shape[1]:
        raise _fail(
            "matrix is not square",
            f"got shape {a.shape}",
            "pass a K x K array (rows and columns indexed by the same arms)",
            source,
        )
    K = a.shape[0]
    if K < 2:
        raise _fail(
            "too few arms",
            f"K = {K}, a dueling bandit problem needs K >= 2",
            "pass a K x K array with K >= 2",
            source,
        )
    bad = ~np.isfinite(a)
    if bad.any():
        i, j = (int(x) for x in np.argwhere(bad)[0])
        raise _fail(
            "non-finite entry",
            f"entry (i={i}, j={j}) = {float(a[i, j])!r} ({int(bad.sum())} non-finite entries; indices are 0-based)",
            "replace NaN/inf entries by probabilities in [0, 1]",
            source,
        )
    bad = (a < 0.0) | (a > 1.0)
    if bad.any():
        i, j = (int(x) for x in np.argwhere(bad)[0])
        raise _fail(
            "entry outside [0, 1]",
            f"entry (i={i}, j={j}) = {float(a[i, j])!r} ({int(bad.sum())} entries outside [0, 1]; indices are 0-based)",
            "entries must be probabilities p_ij = P(arm i beats arm j) in [0, 1]",
            source,
        )
    diag = np.diagonal(a)
    bad = np.abs(diag - 0.5) > atol
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise _fail(
            "diagonal entry is not 1/2",
            f"entry (i={i}, j={i}) = {float(diag[i])!r} (|p_ii - 1/2| > atol = {atol:g}; indices are 0-based)",
            "set every diagonal entry p_ii to 0.5 (an arm ties with itself)",
            source,
        )
    dev = np.abs(a + a.T - 1.0)
    np.fill_diagonal(dev, 0.0)
    bad = np.triu(dev > atol, 1)
    if bad.any():
        i, j = (int(x) for x in np.argwhere(bad)[0])
        raise _fail(
            "p_ij + p_ji != 1",
            f"entries (i={i}, j={j}) = {float(a[i, j])!r} and (j={j}, i={i}) = {float(a[j, i])!r} sum to "
            f"{float(a[i, j] + a[j, i])!r} (|sum - 1| > atol = {atol:g}; {int(bad.sum())} such pairs; "
            "indices are 0-based)",
            "make the matrix antisymmetric, e.g. set p_ji = 1 - p_ij from the upper triangle",
            source,
        )
    iu = np.triu_indices(K, 1)
    upper = a[iu]
    stored = np.empty_like(a)
    stored[iu] = upper
    stored[iu[1], iu[0]] = 1.0 - upper
    np.fill_diagonal(stored, 0.5)
    tie_mask = upper == 0.5
    ties = [(int(i), int(j)) for i, j in zip(iu[0][tie_mask], iu[1][tie_mask])]
    if ties and not allow_ties:
        raise _fail(
            "off-diagonal tie p_ij == 1/2",
            f"tied pairs (i, j), 0-based: {_format_pairs(ties)}",
            "break the ties (e.g. 0.5 -> 0.5 +/- a small gap) or pass allow_ties=True",
            source,
        )
    return stored, ties


class PreferenceMatrix:
    """A validated, immutable K x K preference matrix.

    Parameters
    ----------
    values : array_like, shape (K, K)
        ``values[i, j] = p_ij``, the probability that arm ``i`` beats arm ``j``.
    names : sequence of str, optional
        Arm names; default ``("1", ..., "K")`` (the papers' 1-based labels).
    name : str, optional
        Name of the problem instance (e.g. ``"table3c_multisol"``).  When given
        it is the matrix's :attr:`identity`.
    allow_ties : bool, default True
        Accept exact off-diagonal ties ``p_ij == 1/2`` (with a
        :class:`TiedPairWarning`); if False they raise
        :class:`InvalidMatrixError`.
    atol : float, default 1e-9
        Absolute tolerance for ``p_ii = 1/2`` and ``p_ij + p_ji = 1``.
    source : str, optional
        File path or key the values came from; named in error messages.

    Raises
    ------
    InvalidMatrixError
        If the input is not 2-D, not square, has K < 2, has non-finite
        entries, entries outside [0, 1], a diagonal entry farther than ``atol``
        from 1/2, a pair with ``|p_ij + p_ji - 1| > atol``, or (with
        ``allow_ties=False``) an exact tie.

    Notes
    -----
    The stored array is float64 and read-only.  Its strict upper triangle is
    the input's; the lower triangle is re-derived as ``1 - p_ij`` and the
    diagonal is exactly 0.5, so ``values + values.T == 1`` holds exactly
    (see the module docstring).

    Equality compares the stored values bit for bit, the arm names and the
    instance name; the hash is consistent with it.
    """

    __slots__ = ("_values", "_names", "_name", "_ties", "_digest", "__weakref__")

    def __init__(
        self,
        values,
        *,
        names: Sequence[str] | None = None,
        name: str | None = None,
        allow_ties: bool = True,
        atol: float = 1e-9,
        source: str | None = None,
    ) -> None:
        if not (atol >= 0.0):
            raise ValueError(f"atol must be a non-negative number, got {atol!r}")
        stored, ties = _validate(values, allow_ties, float(atol), source)
        if ties:
            warnings.warn(
                f"preference matrix{_where(source)}{' ' + repr(name) if name else ''} has "
                f"{len(ties)} exact off-diagonal tie(s) p_ij == 1/2 at (i, j), 0-based: "
                f"{_format_pairs(ties)}; tied pairs count as neither a win nor a loss",
                TiedPairWarning,
                stacklevel=2,
            )
        self._init_trusted(stored, names, name, tuple(ties))

    # -- construction helpers -------------------------------------------------
    def _init_trusted(self, stored: np.ndarray, names, name, ties) -> None:
        K = stored.shape[0]
        stored.setflags(write=False)
        self._values = stored
        if names is None:
            self._names = tuple(str(k + 1) for k in range(K))
        else:
            nm = tuple(str(s) for s in names)
            if len(nm) != K:
                raise ValueError(f"names has {len(nm)} entries but the matrix has K = {K} arms")
            if len(set(nm)) != K:
                raise ValueError(f"arm names must be unique, got {nm}")
            self._names = nm
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a str or None, got {type(name).__name__}")
        self._name = name
        self._ties = ties
        self._digest = None

    @classmethod
    def _trusted(cls, stored: np.ndarray, names=None, name=None, ties=None) -> "PreferenceMatrix":
        """Wrap an array known to satisfy the storage invariants (no checks).

        Used by :meth:`submatrix`, :meth:`permuted` and the generators, whose
        outputs are valid by construction.  ``stored`` must be a fresh float64
        array (it is made read-only in place).
        """
        obj = cls.__new__(cls)
        if ties is None:
            iu = np.triu_indices(stored.shape[0], 1)
            m = stored[iu] == 0.5
            ties = tuple((int(i), int(j)) for i, j in zip(iu[0][m], iu[1][m]))
        obj._init_trusted(stored, names, name, tuple(ties))
        return obj

    # -- basic properties -----------------------------------------------------
    @property
    def values(self) -> np.ndarray:
        """The read-only float64 (K, K) array ``p_ij``."""
        return self._values

    @property
    def K(self) -> int:
        """Number of arms."""
        return self._values.shape[0]

    @property
    def names(self) -> tuple[str, ...]:
        """Arm names (default ``"1"`` ... ``"K"``)."""
        return self._names

    @property
    def name(self) -> str | None:
        """Instance name, or None."""
        return self._name

    @property
    def tied_pairs(self) -> tuple[tuple[int, int], ...]:
        """Off-diagonal pairs ``(i, j)``, ``i < j``, with ``p_ij == 1/2`` exactly."""
        return self._ties

    @property
    def has_ties(self) -> bool:
        """Whether any off-diagonal entry equals 1/2 exactly."""
        return bool(self._ties)

    @property
    def sha256(self) -> str:
        """Hex SHA-256 of the little-endian float64 bytes of :attr:`values` (C order)."""
        if self._digest is None:
            self._digest = hashlib.sha256(np.ascontiguousarray(self._values, dtype="<f8").tobytes()).hexdigest()
        return self._digest

    @property
    def identity(self) -> str:
        """Stable identifier: the name if given, else ``"sha256:" + sha256``.

        It depends only on the name or the stored bytes, never on ``hash()`` or
        the process, so it can be used to derive random seeds.
        """
        return self._name if self._name is not None else "sha256:" + self.sha256

    # -- derived matrices -----------------------------------------------------
    def submatrix(self, indices, name: str | None = None) -> "PreferenceMatrix":
        """The matrix restricted to the arms ``indices``, in that order.

        Parameters
        ----------
        indices : sequence of int
            At least two distinct 0-based arm indices (negative indices are not
            accepted).  The result's arm ``a`` is this matrix's arm
            ``indices[a]``; names follow.
        name : str, optional
            Name of the new instance.  Default None, so that the identity is the
            content hash (a parent's name would not identify the submatrix).
        """
        idx = np.asarray(indices)
        if idx.ndim != 1 or idx.size < 2:
            raise ValueError(f"indices must be a 1-D sequence of at least 2 arm indices, got {indices!r}")
        if not np.issubdtype(idx.dtype, np.integer):
            raise TypeError(f"indices must be integers, got dtype {idx.dtype}")
        K = self.K
        if idx.min() < 0 or idx.max() >= K:
            raise IndexError(f"arm indices must lie in [0, {K - 1}], got {idx.tolist()}")
        if np.unique(idx).size != idx.size:
            raise ValueError(f"arm indices must be distinct, got {idx.tolist()}")
        sub = self._values[np.ix_(idx, idx)]  # fancy indexing: a fresh array
        names = tuple(self._names[int(k)] for k in idx)
        return PreferenceMatrix._trusted(sub, names, name)

    def permuted(self, perm, name: str | None = None) -> "PreferenceMatrix":
        """Relabel the arms: new arm ``a`` is old arm ``perm[a]``.

        ``perm`` must be a permutation of ``range(K)``.  The result has
        ``values[a, b] == self.values[perm[a], perm[b]]`` bit for bit.
        """
        p = np.asarray(perm)
        if p.ndim != 1 or p.size != self.K or not np.array_equal(np.sort(p), np.arange(self.K)):
            raise ValueError(f"perm must be a permutation of range({self.K}), got {perm!r}")
        return self.submatrix(p, name=name)

    # -- dunder ---------------------------------------------------------------
    def __eq__(self, other) -> bool:
        if not isinstance(other, PreferenceMatrix):
            return False
        return (
            self._names == other._names
            and self._name == other._name
            and self._values.shape == other._values.shape
            and self.sha256 == other.sha256
        )

    def __hash__(self) -> int:
        return hash((self.sha256, self._names, self._name))

    def __repr__(self) -> str:
        name = f", name={self._name!r}" if self._name is not None else ""
        return f"PreferenceMatrix(K={self.K}{name}, sha256={self.sha256[:12]}..., ties={len(self._ties)})"

    def __array__(self, dtype=None, copy=None):
        if copy is False and dtype not in (None, np.float64):
            raise ValueError("cannot return a view with a different dtype")
        if dtype is None or np.dtype(dtype) == np.float64:
            return self._values.copy() if copy else self._values
        return self._values.astype(dtype)

    def __reduce__(self):
        return (_rebuild, (self._values.copy(), self._names, self._name, self._ties))

    # -- convenience delegations (see duelbench.problems.winners / .regret) ---
    def copeland_scores(self) -> np.ndarray:
        """See :func:`duelbench.problems.winners.copeland_scores`."""
        from . import winners

        return winners.copeland_scores(self._values)

    def losses(self) -> np.ndarray:
        """See :func:`duelbench.problems.winners.losses`."""
        from . import winners

        return winners.losses(self._values)

    def normalized_copeland_scores(self) -> np.ndarray:
        """See :func:`duelbench.problems.winners.normalized_copeland_scores`."""
        from . import winners

        return winners.normalized_copeland_scores(self._values)

    def copeland_winners(self, by: str = "score") -> tuple[int, ...]:
        """See :func:`duelbench.problems.winners.copeland_winners`."""
        from . import winners

        return winners.copeland_winners(self._values, by=by)

    def condorcet_winner(self) -> int | None:
        """See :func:`duelbench.problems.winners.condorcet_winner`."""
        from . import winners

        return winners.condorcet_winner(self._values)

    def has_condorcet_winner(self) -> bool:
        """Whether a Condorcet winner exists."""
        return self.condorcet_winner() is not None

    def borda_scores(self) -> np.ndarray:
        """See :func:`duelbench.problems.winners.borda_scores`."""
        from . import winners

        return winners.borda_scores(self._values)

    def borda_winners(self, tol: float = 1e-12) -> tuple[int, ...]:
        """See :func:`duelbench.problems.winners.borda_winners`."""
        from . import winners

        return winners.borda_winners(self._values, tol=tol)

    def von_neumann_winner(self) -> np.ndarray:
        """See :func:`duelbench.problems.winners.von_neumann_winner`."""
        from . import winners

        return winners.von_neumann_winner(self._values)

    def von_neumann_support(self, tol: float = 1e-9, method: str = "union") -> tuple[int, ...]:
        """See :func:`duelbench.problems.winners.von_neumann_support`."""
        from . import winners

        return winners.von_neumann_support(self._values, tol=tol, method=method)

    def random_walk_winners(self, chain: str = "C", tol: float = 1e-9) -> tuple[int, ...]:
        """See :func:`duelbench.problems.winners.random_walk_winners`."""
        from . import winners

        return winners.random_walk_winners(self._values, chain=chain, tol=tol)

    def regret_matrix(self, kind: str = "copeland") -> np.ndarray:
        """See :func:`duelbench.problems.regret.regret_matrix`."""
        from . import regret

        return regret.regret_matrix(self._values, kind)


def _rebuild(values, names, name, ties):
    return PreferenceMatrix._trusted(values, names, name, ties)


def square_values(P, min_arms: int = 2) -> np.ndarray:
    """The (K, K) float64 array of ``P`` (a :class:`PreferenceMatrix` or anything array-like).

    No validation of the entries (a :class:`PreferenceMatrix` is already validated; raw arrays
    are the caller's responsibility), only of the shape: square with at least ``min_arms``
    arms, else :class:`ValueError`.  C-contiguous (no copy when it already is).
    """
    a = P.values if isinstance(P, PreferenceMatrix) else np.asarray(P, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] < min_arms:
        raise ValueError(f"expected a square (K, K) preference matrix with K >= {min_arms}, got shape {a.shape}")
    return np.ascontiguousarray(a, dtype=np.float64)
