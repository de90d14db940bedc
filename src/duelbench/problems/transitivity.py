"""Strong stochastic transitivity (SST) and the stochastic triangle inequality (STI).

Paper 003 (Agarwal, Ghuge & Nagarajan, "Batched Dueling Bandits", ICML 2022;
``shared/papers/003_27d5cd025c82709f.txt``, one line of text; ``@N`` is a 0-based character
offset in it) defines, with ``P_ij = 1/2 + eps_ij`` (@6531), "we use b_i ≻ b_j when
eps_ij > 0" (@6668) and:

* SST (@7511): "there exists a total ordering, denoted by ≻, over arms such that for every triple
  b_i ≻ b_j ≻ b_k, we have eps_ik >= max{eps_ij, eps_jk}";
* STI (@7676): "for every triple b_i ≻ b_j ≻ b_k, eps_ik <= eps_ij + eps_jk".

(The comparison glyphs are lost in the extraction; the directions are those of Yue et al. 2012,
who first studied the problem "under the SST and STI setting" (@13846), and the only ones that
make the proofs of Theorems 3.2/3.4 work, e.g. "by SST eps_1,j >= eps_iS,j" in the proof of Theorem 3.2,
@28454.)

This module checks both conditions for a given preference matrix, vectorised over the
``C(K, 3)`` triples ``i ≻ j ≻ k`` of an order (161,700 triples at K = 100, a few milliseconds).
Indices are 0-based; a triple is reported as the arm indices ``(i, j, k)``, strongest first.

Decisions
---------
D1 (what "b_i ≻ b_j" means with ties).  The relation ``eps_ij > 0`` is a total order only when
    the matrix has no ties; the hard instances of the lower bound (family @57676), which
    Theorem C.1 (@56982) says satisfy SST and STI, are made of ties, as is SYN-CD (@31931).
    We read the
    "total ordering" of @7511 as a *linear extension* of the strict relation: an order of all
    arms in which no arm is placed before an arm that strictly beats it (``eps_ij >= 0`` for
    every ``i`` placed before ``j``); tied arms may come in either order.  The paper's
    footnote 4 (@52151, glyphs restored: "we can assume b1 ≻ b2 ≻ ... ≻ bK. Thus, rank(bj) < j;
    that is, it is at most the number of bandits strictly preferred over bj") uses the same
    reading.  Both
    conditions are then checked for *every* triple of positions ``a < b < c`` of that order,
    tied pairs included (``eps = 0`` enters the maximum and the sum).  ``triples="strict"``
    selects the weaker reading instead, checking only triples with ``eps_ij > tol`` and
    ``eps_jk > tol`` (a chain of strict preferences).
D2 (which linear extension).  With ties there can be several linear extensions, and for SST
    alone the verdict can depend on the choice (two tied arms ``a, b`` placed ``a`` first need
    ``eps_ac >= eps_bc`` for every ``c`` below them).  :func:`strength_order` builds one by
    topological sorting of the strict relation and, among the arms that no remaining arm
    strictly beats (they are pairwise tied), places first the one with the larger Copeland score
    (number of strict wins), then the larger Borda score (mean of ``P_ij``), then the smaller
    index.  If an arm's gaps to every other arm are at least those of a tied partner
    (``eps_ac >= eps_bc`` for all ``c``), it has at least the partner's Copeland and Borda
    scores, so this choice places it first.  Under SST and STI together, tied arms have
    identical gaps to every third arm (SST and STI of the triple force equality), and all linear
    extensions are connected by swaps of adjacent tied arms, so every linear extension then
    gives the same verdict.  Callers may pass their own ``order``;
    ``satisfies_sst``/``satisfies_sti`` judge the given or constructed order, not all orders.
D3 (no consistent order).  If the strict relation has a cycle there is no linear extension:
    :func:`strength_order` returns None, the report's ``order_consistent`` is False, and
    ``satisfies_sst``/``satisfies_sti`` are False.  The violating triples are then still
    counted, in the fallback order "Copeland score, then Borda score, then index" (descending,
    descending, ascending), for description only; the pairs that order inverts are listed.
D4 (tolerance).  A triple violates SST iff ``eps_ik < max(eps_ij, eps_jk) - tol`` and STI iff
    ``eps_ik > eps_ij + eps_jk + tol`` (default ``tol = 1e-12``, so that float rounding in BTL
    matrices is not reported); a given order is inconsistent iff it places ``i`` before ``j``
    with ``eps_ij < -tol``.  The strict relation used to *build* the order is exact
    (``P_ij > 1/2``), as everywhere in :mod:`duelbench.problems.winners`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .matrix import square_values
from .winners import borda_scores, condorcet_winner, copeland_scores

__all__ = [
    "strength_order",
    "ranking_order",
    "order_inversions",
    "sst_violations",
    "sti_violations",
    "satisfies_sst",
    "satisfies_sti",
    "transitivity_report",
    "TransitivityReport",
    "gaps_to_best",
    "epsilon_min",
    "TRIPLE_MODES",
]

#: Which triples are checked (decision D1).
TRIPLE_MODES = ("ordered", "strict")
DEFAULT_TOL = 1e-12


def _eps(P) -> np.ndarray:
    return square_values(P) - 0.5


def _strength_key(a: np.ndarray):
    """Sort key of an arm: Copeland score (desc), Borda score (desc), index (asc) (decision D2)."""
    cop = copeland_scores(a)
    bor = borda_scores(a)
    return lambda i: (-int(cop[i]), -float(bor[i]), i)


def ranking_order(P) -> tuple[int, ...]:
    """All arms by Copeland score (descending), then Borda score (descending), then index.

    The fallback order of decision D3; it need not be consistent with the strict relation.
    """
    a = square_values(P)
    return tuple(sorted(range(a.shape[0]), key=_strength_key(a)))


def strength_order(P) -> tuple[int, ...] | None:
    """A total order of the arms consistent with "b_i ≻ b_j iff P_ij > 1/2", strongest first.

    Topological sort of the strict relation (Kahn's algorithm): repeatedly take, among the
    unplaced arms that no unplaced arm strictly beats, the one with the largest Copeland score,
    then the largest Borda score, then the smallest index (decision D2).

    Parameters
    ----------
    P : PreferenceMatrix or array_like, shape (K, K)

    Returns
    -------
    tuple of int or None
        The 0-based arm indices, strongest first, such that no arm is placed before an arm that
        strictly beats it; None if the strict relation has a cycle (no such order exists,
        decision D3).
    """
    a = square_values(P)
    K = a.shape[0]
    beats = a > 0.5
    remaining = np.ones(K, dtype=bool)
    key = _strength_key(a)
    order: list[int] = []
    for _ in range(K):
        # arms not strictly beaten by any remaining arm
        beaten = (beats & remaining[:, None]).any(axis=0)
        free = np.flatnonzero(remaining & ~beaten)
        if free.size == 0:
            return None
        best = min((int(i) for i in free), key=key)
        order.append(best)
        remaining[best] = False
    return tuple(order)


def _check_order(order, K: int) -> np.ndarray:
    o = np.asarray(order)
    if o.ndim != 1 or o.size != K or not np.issubdtype(o.dtype, np.integer) \
            or not np.array_equal(np.sort(o), np.arange(K)):
        raise ValueError(f"order must be a permutation of range({K}) (0-based arm indices), got {order!r}")
    return o.astype(np.int64)


def _resolve_order(P, order) -> tuple[np.ndarray, np.ndarray, bool]:
    """(eps matrix, order as int array, whether a consistent order was found or given)."""
    e = _eps(P)
    K = e.shape[0]
    if order is None:
        o = strength_order(e + 0.5)
        if o is None:
            return e, np.asarray(ranking_order(e + 0.5), dtype=np.int64), False
        return e, np.asarray(o, dtype=np.int64), True
    return e, _check_order(order, K), True


def order_inversions(P, order, tol: float = DEFAULT_TOL) -> list[tuple[int, int]]:
    """Pairs ``(i, j)`` (arm indices) with ``i`` placed before ``j`` in ``order`` but ``eps_ij < -tol``."""
    e = _eps(P)
    o = _check_order(order, e.shape[0])
    eo = e[np.ix_(o, o)]
    a, b = np.nonzero(np.triu(eo < -tol, 1))
    return [(int(o[x]), int(o[y])) for x, y in zip(a, b)]


def _scan(e: np.ndarray, o: np.ndarray, tol: float, triples: str, want: str, limit: int | None):
    """Scan all position triples a < b < c of order ``o``.

    Returns ``(count, triples as an (n, 3) int array of arm indices (at most ``limit`` rows if
    given), largest violation margin, number of triples checked)``.  ``want`` is "sst" or "sti".
    """
    if triples not in TRIPLE_MODES:
        raise ValueError(f"triples must be one of {TRIPLE_MODES}, got {triples!r}")
    if not (tol >= 0.0):
        raise ValueError(f"tol must be a non-negative number, got {tol!r}")
    eo = e[np.ix_(o, o)]
    K = eo.shape[0]
    count = 0
    checked = 0
    worst = 0.0
    found = []
    kept = 0
    for b in range(1, K - 1):  # the middle arm of the triple
        e_ab = eo[:b, b][:, None]          # eps_ij, shape (b, 1)
        e_bc = eo[b, b + 1:][None, :]       # eps_jk, shape (1, K-b-1)
        e_ac = eo[:b, b + 1:]               # eps_ik, shape (b, K-b-1)
        if want == "sst":
            margin = np.maximum(e_ab, e_bc) - e_ac
        else:
            margin = e_ac - (e_ab + e_bc)
        bad = margin > tol
        if triples == "strict":
            keep = (e_ab > tol) & (e_bc > tol)
            bad &= keep
            checked += int(keep.sum())
        else:
            checked += e_ac.size
        n = int(bad.sum())
        if n:
            count += n
            worst = max(worst, float(margin[bad].max()))
            if limit is None or kept < limit:
                ia, ic = np.nonzero(bad)
                rows = np.column_stack([o[ia], np.full(ia.size, o[b]), o[b + 1 + ic]])
                if limit is not None:
                    rows = rows[: limit - kept]
                found.append(rows)
                kept += rows.shape[0]
    arr = np.concatenate(found).astype(np.int64) if found else np.zeros((0, 3), dtype=np.int64)
    return count, arr, worst, checked


def sst_violations(P, order=None, tol: float = DEFAULT_TOL, *, triples: str = "ordered") -> np.ndarray:
    """Triples ``(i, j, k)``, ``i ≻ j ≻ k`` in the order, with ``eps_ik < max(eps_ij, eps_jk) - tol``.

    Strong stochastic transitivity, paper 003 §1.2 (@7511).

    Parameters
    ----------
    P : PreferenceMatrix or array_like, shape (K, K)
    order : sequence of int, optional
        A permutation of the arms, strongest first.  Default :func:`strength_order` (decision D2),
        or the fallback :func:`ranking_order` if the strict relation is cyclic (decision D3).
    tol : float
        Absolute tolerance (decision D4).
    triples : {"ordered", "strict"}
        All position triples of the order (default) or only chains of strict preferences
        (decision D1).

    Returns
    -------
    numpy.ndarray, shape (n, 3), int64
        The violating triples as arm indices, strongest first, sorted by the positions of the
        middle, first and last arm in the order.
    """
    e, o, _ = _resolve_order(P, order)
    return _scan(e, o, tol, triples, "sst", None)[1]


def sti_violations(P, order=None, tol: float = DEFAULT_TOL, *, triples: str = "ordered") -> np.ndarray:
    """Triples ``(i, j, k)``, ``i ≻ j ≻ k`` in the order, with ``eps_ik > eps_ij + eps_jk + tol``.

    Stochastic triangle inequality, paper 003 §1.2 (@7676).  Parameters and return value as
    :func:`sst_violations`.
    """
    e, o, _ = _resolve_order(P, order)
    return _scan(e, o, tol, triples, "sti", None)[1]


@dataclass(frozen=True)
class TransitivityReport:
    """SST / STI check of one matrix in one order.

    Attributes
    ----------
    K : int
    order : tuple of int
        The order the triples were taken in (arm indices, strongest first).
    order_consistent : bool
        Whether ``order`` is a linear extension of the strict relation (decision D3).  False
        when no consistent order exists or the given order inverts a strict pair.
    inversions : tuple of (int, int)
        Pairs ``(i, j)`` placed ``i`` before ``j`` although ``eps_ij < -tol``.
    triples : str
        "ordered" or "strict" (decision D1).
    n_triples : int
        Number of triples checked (``C(K, 3)`` for "ordered").
    sst_count, sti_count : int
        Numbers of violating triples.
    sst_share, sti_share : float
        ``count / n_triples`` (0 when no triple was checked).
    sst_max_margin, sti_max_margin : float
        Largest violation: ``max(eps_ij, eps_jk) - eps_ik`` resp. ``eps_ik - eps_ij - eps_jk``
        over the violating triples (0 if none).
    sst_examples, sti_examples : tuple of (int, int, int)
        The first few violating triples.
    tol : float
    """
    K: int
    order: tuple
    order_consistent: bool
    inversions: tuple
    triples: str
    n_triples: int
    sst_count: int
    sti_count: int
    sst_share: float
    sti_share: float
    sst_max_margin: float
    sti_max_margin: float
    sst_examples: tuple
    sti_examples: tuple
    tol: float

    @property
    def sst(self) -> bool:
        """SST holds in this order (consistent order, no violating triple)."""
        return self.order_consistent and self.sst_count == 0

    @property
    def sti(self) -> bool:
        """STI holds in this order (consistent order, no violating triple)."""
        return self.order_consistent and self.sti_count == 0

    def as_dict(self) -> dict:
        """Plain-Python dictionary (lists instead of tuples), for JSON/YAML output."""
        return {
            "K": self.K,
            "order": list(self.order),
            "order_consistent": self.order_consistent,
            "inversions": [list(p) for p in self.inversions],
            "triples": self.triples,
            "n_triples": self.n_triples,
            "sst_count": self.sst_count,
            "sti_count": self.sti_count,
            "sst_share": self.sst_share,
            "sti_share": self.sti_share,
            "sst_max_margin": self.sst_max_margin,
            "sti_max_margin": self.sti_max_margin,
            "sst_examples": [list(t) for t in self.sst_examples],
            "sti_examples": [list(t) for t in self.sti_examples],
            "sst": self.sst,
            "sti": self.sti,
            "tol": self.tol,
        }


def transitivity_report(P, order=None, tol: float = DEFAULT_TOL, *, triples: str = "ordered",
                        max_examples: int = 5) -> TransitivityReport:
    """Counts, shares and examples of SST and STI violations (see :class:`TransitivityReport`).

    ``order``, ``tol`` and ``triples`` as in :func:`sst_violations`; ``max_examples`` triples of
    each kind are kept.
    """
    if max_examples < 0:
        raise ValueError(f"max_examples must be >= 0, got {max_examples}")
    e, o, consistent = _resolve_order(P, order)
    eo = e[np.ix_(o, o)]
    a, b = np.nonzero(np.triu(eo < -tol, 1))
    inv = tuple((int(o[x]), int(o[y])) for x, y in zip(a, b))
    consistent = consistent and not inv
    n_s, ex_s, w_s, checked = _scan(e, o, tol, triples, "sst", max_examples)
    n_t, ex_t, w_t, _ = _scan(e, o, tol, triples, "sti", max_examples)
    share = (lambda n: n / checked if checked else 0.0)
    return TransitivityReport(
        K=int(e.shape[0]),
        order=tuple(int(x) for x in o),
        order_consistent=bool(consistent),
        inversions=inv,
        triples=triples,
        n_triples=int(checked),
        sst_count=int(n_s),
        sti_count=int(n_t),
        sst_share=share(n_s),
        sti_share=share(n_t),
        sst_max_margin=float(w_s),
        sti_max_margin=float(w_t),
        sst_examples=tuple(tuple(int(x) for x in r) for r in ex_s),
        sti_examples=tuple(tuple(int(x) for x in r) for r in ex_t),
        tol=float(tol),
    )


def satisfies_sst(P, order=None, tol: float = DEFAULT_TOL, *, triples: str = "ordered") -> bool:
    """Whether SST (@7511) holds in ``order`` (default :func:`strength_order`; decisions D1-D4)."""
    return transitivity_report(P, order, tol, triples=triples, max_examples=0).sst


def satisfies_sti(P, order=None, tol: float = DEFAULT_TOL, *, triples: str = "ordered") -> bool:
    """Whether STI (@7676) holds in ``order`` (default :func:`strength_order`; decisions D1-D4)."""
    return transitivity_report(P, order, tol, triples=triples, max_examples=0).sti


# --------------------------------------------------------------------------- gaps to the best arm
def gaps_to_best(P, best: int | None = None) -> np.ndarray:
    """``eps_j = eps_{1,j} = P_{1,j} - 1/2`` for every arm ``j`` (paper 003 §1.2, @6668 ff.).

    ``best`` (0-based) is the paper's ``b_1``; default the Condorcet winner, else
    ``strength_order(P)[0]``; ValueError if neither exists.  The entry of ``best`` itself is 0.
    """
    a = square_values(P)
    if best is None:
        best = condorcet_winner(a)
        if best is None:
            o = strength_order(a)
            if o is None:
                raise ValueError("no Condorcet winner and no order consistent with the preferences: "
                                 "pass best= explicitly")
            best = o[0]
    best = int(best)
    if not 0 <= best < a.shape[0]:
        raise IndexError(f"best must be a 0-based arm index in [0, {a.shape[0] - 1}], got {best}")
    return a[best] - 0.5


def epsilon_min(P, best: int | None = None) -> float:
    """``eps_min = min_{j : eps_j > 0} eps_j``, the smallest non-zero gap to the best arm (@7274).

    Gaps are taken against ``best`` (see :func:`gaps_to_best`).  ValueError if every gap is
    zero or negative (``best`` beats nobody).
    """
    g = gaps_to_best(P, best)
    pos = g[g > 0]
    if pos.size == 0:
        raise ValueError("the best arm has no positive gap to any arm: eps_min is undefined")
    return float(pos.min())
