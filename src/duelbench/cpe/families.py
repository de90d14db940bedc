"""Instances of combinatorial dueling bandits for Chen, Du, Huang & Zhao (ICML 2020).

* :func:`toy` — the example of Figures 1–4 (L46–L58), recovered from the printed scores.
* :func:`width_example` — a graph matching Figures 8–10 (L590–L599).
* Graphs: :func:`complete_graph` (``K_{n,ℓ}``) and F3 :func:`sparse_graph`.
* Preference families, each a deterministic function of a :class:`numpy.random.Generator`:
  F1 :func:`linear_utility` and F2 :func:`planted_condorcet`.
* :func:`draw` — a family instance that has a unique Borda winner and/or a strict Condorcet
  winner (redrawn from the same generator until it does, rejections counted), and
  :func:`seeded` — instance number ``index`` of a family for a seed.

The paper has no experiments; the families are the suite's.

Decisions
---------
* **F-D1 — toy edges.**  Figures 1–4 keep only labels, not the edges' endpoints.  The matrix of
  Figure 2 (L48–L53) puts ``e1, e2, e3`` at ``s1`` and ``e4, e5`` at ``s2`` (comparable edges have
  non-zero entries).  Among the 24 ways to give them candidates from ``c1 … c4`` in the paper's
  edge order (L64: position, then candidate), exactly one gives the Borda winner the score 0.64
  (L83) and the Condorcet winner the score 0.615 (L87): ``e1 = (c1, s1)``, ``e2 = (c2, s1)``,
  ``e3 = (c3, s1)``, ``e4 = (c3, s2)``, ``e5 = (c4, s2)``.  The printed scores select it; they are
  no independent check of it.
* **F-D2 — width example.**  Figures 8–10 also keep only labels; :func:`width_example` is one
  graph consistent with them (M1 = {e1, e3, e6}, M2 = {e2, e4, e6}, union component
  {e1, e2, e3, e4}, width 4, L597–L599).  Only the graph matters there: preferences are 1/2.
* **F-D3 — F1 linear utility.**  ``θ_e ~ U[0, 1]`` per edge (one ``rng.random(m)`` call, edges in
  order) and ``p(e, e′) = 1/2 + s(θ_e − θ_{e′})`` for comparable edges, ``0 < s ≤ 1/2`` (so
  ``p ∈ [0, 1]``).  Then ``w(e) = 1/2 + s(θ_e − θ̄_{s(e)})`` with ``θ̄_j`` the mean utility at ``j``
  under a uniform maximum matching, ``f(M, M′) = 1/2 + s(Θ(M) − Θ(M′))/ℓ`` with
  ``Θ(M) = Σ_{e ∈ M} θ_e``, so Borda and Condorcet winners are both ``argmax Θ`` and every gap is
  linear in ``s``.
* **F-D4 — F2 planted Condorcet.**  The planted matching ``π`` is uniform over the maximum
  matchings of the graph: on the complete graph (``edges=None``) an injective map positions →
  candidates from ``rng.permutation(n)[:ℓ]``; on a given edge set the exact uniform sampler of
  :class:`~duelbench.cpe.matching.MatchingCounter` (so ``n ≤ 20`` there).  Then one ``rng.uniform(1/2 − margin,
  1/2 + margin, K)`` call fills the duel pairs in :attr:`BipartiteInstance.pairs` order and the
  pairs holding a planted edge are overwritten: the planted edge wins with ``1/2 + margin``.
  ``0 < margin ≤ 1/2``.  ``π`` is a strict Condorcet winner by construction; the Borda winner may
  differ.
* **F-D5 — F3 sparse graph.**  Each edge of ``K_{n,ℓ}`` is kept with probability ``density``
  (one ``rng.random((ℓ, n))`` call, position-major); a graph with no matching filling every
  position is redrawn (at most ``max_tries`` draws, then ``RuntimeError``).
* **F-D6 — draw.**  ``params`` name the family's arguments (``n``, ``ell`` and ``s`` or
  ``margin``) and optionally ``density`` (F3 graph instead of the complete graph).  An instance
  failing ``require`` is discarded and the next one drawn from the same generator; the returned
  count adds the discarded graphs (F3) and the discarded instances.  ``require`` is ``"borda"``
  (unique Borda winner: best two scores more than 1e-12 apart), ``"condorcet"`` (strict Condorcet
  winner, L85–L87), ``"both"`` (default) or ``None``; both checks use
  :mod:`~duelbench.cpe.hardness`.
* **F-D7 — validation.**  Bad arguments raise at once, naming the parameter: ``TypeError`` for a
  non-integer ``n``/``ell``/``index`` or an ``rng`` that is not a ``numpy.random.Generator``;
  ``ValueError`` for ``ℓ ∉ [1, n]``, ``s ∉ (0, 1/2]``, ``margin ∉ (0, 1/2]``,
  ``density ∉ (0, 1]``, a ``theta`` of the wrong length, an unknown family, missing or unknown
  ``params`` keys, or an unknown ``require``; ``RuntimeError`` when ``max_tries`` draws fail.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from .hardness import borda_unique, condorcet_winner
from .instance import BipartiteInstance
from .matching import MatchingCounter

__all__ = ["toy", "TOY_EDGES", "TOY_P", "width_example", "complete_graph", "sparse_graph", "linear_utility",
           "planted_condorcet", "FAMILIES", "draw", "seeded", "MAX_TRIES"]

#: Figure 2 (L48–L53): ``P[i, j] = p(e_{i+1}, e_{j+1})``, rows beat columns.
TOY_P = np.array([[0.50, 0.45, 1.00, 0.00, 0.00],
                  [0.55, 0.50, 0.55, 0.00, 0.00],
                  [0.00, 0.45, 0.50, 0.00, 0.00],
                  [0.00, 0.00, 0.00, 0.50, 0.00],
                  [0.00, 0.00, 0.00, 1.00, 0.50]])
#: The recovered endpoints (decision F-D1), 0-based (candidate, position).
TOY_EDGES = ((0, 0), (1, 0), (2, 0), (2, 1), (3, 1))
#: Default cap on the draws of :func:`sparse_graph` and :func:`draw`.
MAX_TRIES = 10_000


def toy() -> BipartiteInstance:
    """The example of Figures 1–4 (L46–L58): 4 candidates, 2 positions, edges ``e1 … e5``.

    The matrix is Figure 2's.  The text keeps the edge labels but not their endpoints; they
    were recovered by enumerating every assignment of candidates ``c1 … c4`` to the edges in the
    paper's order (L64: by position, then candidate; ``e1, e2, e3`` at ``s1`` and ``e4, e5`` at
    ``s2``, as Figure 2's comparable pairs show) and keeping those where the Borda winner scores
    0.64 (L83) and the Condorcet winner 0.615 (L87).  Exactly one survives:
    ``e1 = (c1, s1)``, ``e2 = (c2, s1)``, ``e3 = (c3, s1)``, ``e4 = (c3, s2)``, ``e5 = (c4, s2)``
    (decision F-D1).  Its Borda winner is ``{e1, e5}``, its Condorcet winner ``{e2, e5}``.
    """
    return BipartiteInstance(n=4, ell=2, edges=TOY_EDGES, P=TOY_P, name="chen2020-toy")


def width_example() -> BipartiteInstance:
    """A graph for Figures 8–10 (L590–L599), the suite's reconstruction (the text keeps only
    labels; decision F-D2): ``e1 = (c1, s1)``, ``e2 = (c2, s1)``, ``e3 = (c2, s2)``,
    ``e4 = (c3, s2)``, ``e5 = (c4, s3)``, ``e6 = (c5, s3)``; ``M1 = {e1, e3, e6}``,
    ``M2 = {e2, e4, e6}``, ``width(G) = 4`` (L599).  Preferences are 1/2 (only the graph matters).
    """
    edges = ((0, 0), (1, 0), (1, 1), (2, 1), (3, 2), (4, 2))
    return BipartiteInstance(n=5, ell=3, edges=edges, P=_half(edges), name="chen2020-width")


# --- validation ---------------------------------------------------------------------------------
def _int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    return int(value)


def _sizes(n, ell) -> tuple[int, int]:
    n, ell = _int("n", n), _int("ell", ell)
    if not 1 <= ell <= n:
        raise ValueError(f"ell must satisfy 1 ≤ ell ≤ n (n ≥ ℓ, L60), got n={n}, ell={ell}")
    return n, ell


def _rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def _in_half_open(name: str, value, upper: float) -> float:
    value = float(value)
    if not 0.0 < value <= upper:
        raise ValueError(f"{name} must lie in (0, {upper:g}], got {value!r}")
    return value


# --- graphs --------------------------------------------------------------------------------------
def _position_of(edges) -> np.ndarray:
    return np.array([s for _, s in edges], dtype=np.int64)


def _half(edges) -> np.ndarray:
    """1/2 between comparable edges, 0 elsewhere."""
    pos = _position_of(edges)
    return np.where(pos[:, None] == pos[None, :], 0.5, 0.0)


def complete_graph(n: int, ell: int) -> tuple[tuple[int, int], ...]:
    """The edges of ``K_{n,ℓ}`` in the paper's order (position, then candidate; L64)."""
    n, ell = _sizes(n, ell)
    return tuple((c, s) for s in range(ell) for c in range(n))


def sparse_graph(n: int, ell: int, density: float, rng: np.random.Generator, *,
                 max_tries: int = MAX_TRIES) -> tuple[tuple[tuple[int, int], ...], int]:
    """F3: each edge of ``K_{n,ℓ}`` kept with probability ``density``, redrawn until some
    matching fills every position (L68; decision F-D5).

    Returns
    -------
    (edges, rejections)
        The edges in the paper's order and the number of graphs discarded.
    """
    n, ell = _sizes(n, ell)
    density = _in_half_open("density", density, 1.0)
    rng = _rng(rng)
    for tries in range(max_tries):
        keep = rng.random((ell, n)) < density
        edges = tuple((int(c), int(s)) for s, c in zip(*np.nonzero(keep)))
        try:
            BipartiteInstance(n=n, ell=ell, edges=edges, P=_half(edges), name="F3")
        except ValueError:
            continue
        return edges, tries
    raise RuntimeError(f"sparse_graph(n={n}, ell={ell}, density={density}): no graph with a matching filling every "
                       f"position in {max_tries} draws")


def _edges_or_complete(n: int, ell: int, edges) -> tuple[tuple[int, int], ...]:
    if edges is None:
        return complete_graph(n, ell)
    return tuple((int(c), int(s)) for c, s in edges)


def _fill(edges, upper: np.ndarray) -> np.ndarray:
    """``P`` from the values ``p(e_i, e_j)`` of the duel pairs ``i < j`` (row-major order)."""
    m = len(edges)
    pos = _position_of(edges)
    i, j = np.nonzero(np.triu(pos[:, None] == pos[None, :], k=1))
    P = np.zeros((m, m))
    P[np.arange(m), np.arange(m)] = 0.5
    P[i, j] = upper
    P[j, i] = 1.0 - upper
    return P


# --- preference families -------------------------------------------------------------------------
def linear_utility(n: int, ell: int, s: float, rng: np.random.Generator, *, edges=None, theta=None,
                   name: str | None = None) -> BipartiteInstance:
    """F1: ``p(e, e′) = 1/2 + s(θ_e − θ_{e′})`` for comparable edges, ``θ_e ~ U[0, 1]`` (F-D3).

    Parameters
    ----------
    n, ell : int
        Candidates and positions.
    s : float
        Slope, ``0 < s ≤ 1/2``.
    rng : numpy.random.Generator
        Draws ``θ`` (unused when ``theta`` is given).
    edges : sequence of (candidate, position), optional
        The graph, in the paper's order; ``K_{n,ℓ}`` by default.
    theta : array of length m, optional
        Utilities to use instead of drawing them.
    name : str, optional
    """
    n, ell = _sizes(n, ell)
    s = _in_half_open("s", s, 0.5)
    rng = _rng(rng)
    edges = _edges_or_complete(n, ell, edges)
    if theta is None:
        theta = rng.random(len(edges))
    theta = np.asarray(theta, dtype=np.float64)
    if theta.shape != (len(edges),):
        raise ValueError(f"theta must have one utility per edge ({len(edges)}), got shape {theta.shape}")
    pos = _position_of(edges)
    i, j = np.nonzero(np.triu(pos[:, None] == pos[None, :], k=1))
    P = _fill(edges, 0.5 + s * (theta[i] - theta[j]))
    return BipartiteInstance(n=n, ell=ell, edges=edges, P=P, name=name or f"F1(n={n}, ell={ell}, s={s:g})")


def planted_condorcet(n: int, ell: int, margin: float, rng: np.random.Generator, *, edges=None,
                      name: str | None = None) -> BipartiteInstance:
    """F2: a planted matching ``π`` whose edge beats every other edge of its position with
    probability ``1/2 + margin``; other duels ``p ~ U[1/2 − margin, 1/2 + margin]`` (F-D4).

    Parameters
    ----------
    n, ell : int
    margin : float
        ``0 < margin ≤ 1/2``.
    rng : numpy.random.Generator
    edges : sequence of (candidate, position), optional
        The graph (``π`` is drawn uniformly among its maximum matchings); ``K_{n,ℓ}`` by default.
    name : str, optional
    """
    n, ell = _sizes(n, ell)
    margin = _in_half_open("margin", margin, 0.5)
    rng = _rng(rng)
    complete = edges is None
    edges = _edges_or_complete(n, ell, edges)
    graph = BipartiteInstance(n=n, ell=ell, edges=edges, P=_half(edges), name="graph")
    if complete:
        cands = rng.permutation(n)[:ell]
        planted = np.array([graph.edge_index(int(c), j) for j, c in enumerate(cands)], dtype=np.int64)
    else:
        planted = MatchingCounter(graph).sample(rng)
    pairs = graph.pairs
    upper = rng.uniform(0.5 - margin, 0.5 + margin, size=len(pairs))
    is_planted = np.zeros(graph.m, dtype=bool)
    is_planted[planted] = True
    upper = np.where(is_planted[pairs[:, 0]], 0.5 + margin, upper)
    upper = np.where(is_planted[pairs[:, 1]], 0.5 - margin, upper)
    return BipartiteInstance(n=n, ell=ell, edges=edges, P=_fill(edges, upper),
                             name=name or f"F2(n={n}, ell={ell}, margin={margin:g})")


#: Family name → (function, its parameter besides n and ell).
FAMILIES = {"linear_utility": (linear_utility, "s"), "planted_condorcet": (planted_condorcet, "margin")}
_REQUIRE = ("borda", "condorcet", "both", None)


def _check_params(family: str, params: dict) -> tuple:
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {sorted(FAMILIES)}, got {family!r}")
    fn, strength = FAMILIES[family]
    needed = {"n", "ell", strength}
    allowed = needed | {"density"}
    missing, unknown = needed - set(params), set(params) - allowed
    if missing:
        raise ValueError(f"params of {family!r} miss {sorted(missing)}")
    if unknown:
        raise ValueError(f"params of {family!r} has unknown keys {sorted(unknown)} (allowed: {sorted(allowed)})")
    return fn, strength


def _meets(inst: BipartiteInstance, require) -> bool:
    if require in ("borda", "both") and not borda_unique(inst):
        return False
    if require in ("condorcet", "both") and condorcet_winner(inst) is None:
        return False
    return True


def draw(family: str, params: dict, rng: np.random.Generator, require: str | None = "both", *,
         max_tries: int = MAX_TRIES) -> tuple[BipartiteInstance, int]:
    """One instance of ``family`` meeting ``require``, redrawn from ``rng`` until it does (F-D6).

    Parameters
    ----------
    family : {"linear_utility", "planted_condorcet"}
    params : dict
        ``n``, ``ell``, ``s`` (F1) or ``margin`` (F2), and optionally ``density`` (F3 graph).
    rng : numpy.random.Generator
    require : {"borda", "condorcet", "both", None}
        ``"borda"``: a unique Borda winner (best two Borda scores more than 1e-12 apart);
        ``"condorcet"``: a strict Condorcet winner (``f(M*, M, P) > 1/2`` for all ``M ≠ M*``).
    max_tries : int
        Instances drawn before giving up (``RuntimeError``).

    Returns
    -------
    (instance, rejections)
        ``rejections`` counts the discarded graphs and instances.
    """
    fn, strength = _check_params(family, params)
    if require not in _REQUIRE:
        raise ValueError(f"require must be one of {_REQUIRE}, got {require!r}")
    rng = _rng(rng)
    n, ell = _sizes(params["n"], params["ell"])
    rejections = 0
    for _ in range(max_tries):
        edges = None
        if "density" in params:
            edges, graph_rejections = sparse_graph(n, ell, params["density"], rng, max_tries=max_tries)
            rejections += graph_rejections
        inst = fn(n, ell, params[strength], rng, edges=edges)
        if _meets(inst, require):
            return inst, rejections
        rejections += 1
    raise RuntimeError(f"draw({family!r}, {params!r}, require={require!r}): no instance in {max_tries} draws")


def seeded(family: str, params: dict, seed: int, index: int, require: str | None = "both", *,
           max_tries: int = MAX_TRIES) -> tuple[BipartiteInstance, int]:
    """Instance number ``index`` of ``family``: :func:`draw` from
    ``np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))``, so it depends
    on ``(seed, index)`` only."""
    seed, index = _int("seed", seed), _int("index", index)
    if index < 0:
        raise ValueError(f"index must be non-negative, got {index}")
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))
    return draw(family, params, rng, require, max_tries=max_tries)
