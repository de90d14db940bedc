"""Appendix C of Zoghi, Karnin, Whiteson & de Rijke (2015): the random K-subsets and their statistics.

Paper text ``shared/papers/001_46dfb6e9ef9a8784.txt`` (``Lnnn`` below), Appendix C (L420-L457):
Figure 4 (probability of a Condorcet winner), Table 1 (overlap of winner notions), Figure 5
(C and L_C) and Figure 6 (Delta^2 / Delta_min^2), all computed on the same random K-armed
submatrices of the 136-ranker MSLR matrices (readings Z5-Z7 of ``data/published/zoghi2015.yaml``).
This module draws the samples and computes their per-sample quantities (the sample function of
the experiment's sample families); :mod:`.appendix_c_tables` turns them into the tables.

Sampling (Z5)
-------------
Sample ``i`` of size ``K`` of click model ``m`` is the sorted uniform K-subset (without
replacement) of the 136 rankers drawn by ``Generator(PCG64(SeedSequence(seed, spawn_key=(*w(m),
K, i)))).choice(136, K, replace=False)``, where ``w(m)`` are the eight 32-bit words of
sha256("zoghi2015_appendix_c", m) (:func:`duelbench.engine.seeding.key_words`). It depends
only on (seed, click model, K, i): how the samples are split into shards changes nothing
(:func:`sample_subset`). Samples are enumerated K-major (all samples of the first K, then the
next K, ...): sample ``f`` of a family is ``(K, i) = (k_values[f // n], f % n)`` with ``n``
samples per K (:func:`sample_pairs`). Each click model is one sample family
(:mod:`duelbench.experiments.samples`) whose job is :func:`family_job`; a shard holds a
contiguous range of the enumeration.

Per sample (:func:`sample_statistics`; the columns of :func:`samples`)
----------------------------------------------------------------------
* ``k``, ``index``: K and i; ``subset``: the sampled rankers.
* ``has_cw``: a Condorcet winner exists (:func:`duelbench.problems.winners.condorcet_winner`).
* ``C``, ``L_C``: number of Copeland winners and their (largest) number of losses, and
  ``delta`` / ``delta_min``: Definition 3.6's Delta and Definition 3.2's Delta_min, all from
  :func:`duelbench.bounds.ccb.ccb_quantities` (``delta_def36`` and ``delta_globalmin``). For
  K = 1: C = 1, L_C = 0, the deltas undefined (NaN).
* winner sets ``winners_<notion>``: Copeland (most wins), Borda (largest sum of p_ij), von
  Neumann support (``vn_union``: union of the supports of all optimal strategies, and
  ``vn_solution``: the support of the LP solution), random-walk winners of the chains RW-A,
  RW-B, RW-C, all from :mod:`duelbench.problems.winners`.
* ``smith``: size of the top cycle (Smith set; see below).

A set of rankers (``subset``, the winner sets) is stored over the original ranker indices as
:data:`WORDS` 64-bit words, one column each (``<set>_w0``, ``<set>_w1``, ...): ranker ``x`` is
bit ``x % 64`` of word ``x // 64`` (:func:`mask_words`). A click model outside
``winner_statistics`` gets mode ``condorcet``: only ``has_cw`` (Figure 4 needs nothing else);
``C``, ``L_C``, ``smith`` are -1, the deltas NaN and the winner sets empty.

Von Neumann LPs on the top cycle
--------------------------------
The LPs dominate the cost, so they are solved on the *top cycle* ``S`` (the smallest set whose
members each beat every non-member strictly) instead of on all K arms. This is exact: let w* be
optimal for the game restricted to S; it is optimal in the full game, because every member of S
beats every non-member (payoff > 0). If an optimal strategy w put mass on some j outside S, then
G(w*, w) = sum_j w_j G(w*, j) > 0 (each term >= 0, the term of j > 0), whereas the game is
skew-symmetric and w is optimal, so G(w*, w) = -G(w, w*) <= 0: a contradiction. Hence every
optimal strategy is supported in S, and the optimal strategies of the full game are exactly those
of the game on S (padded with zeros). The ``union`` support is therefore the same set; the
``solution`` support is the support of the LP solution on S, which can differ from the vertex a
full-size LP would return only when the optimal strategy is not unique (not the case for the
MSLR submatrices without ties; the tests compare both on random submatrices).
The top cycle is the source component of the "does not lose to" graph (edge i -> j when
p_ji >= 1/2): :func:`top_cycle`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

#: Winner notions stored per sample (columns ``winners_<notion>_w<j>``).
NOTIONS = ("copeland", "borda", "vn_union", "vn_solution", "rw_a", "rw_b", "rw_c")
#: Click models whose matrices can be sampled (dataset registry names).
CLICK_MODELS = ("mslr_informational", "mslr_navigational", "mslr_perfect")
#: Number of rankers of the MSLR matrices.
N_ARMS = 136
#: 64-bit words of a stored set of rankers.
WORDS = (N_ARMS + 63) // 64
#: The sets of rankers stored per sample.
SETS = ("subset", *(f"winners_{n}" for n in NOTIONS))
#: What a sample family computes per sample: every quantity, or only whether a Condorcet winner exists.
MODES = ("full", "condorcet")


class AppendixCError(ValueError):
    """Bad Appendix-C settings or samples; the message says what and where."""


# --------------------------------------------------------------------------------------------
# sampling
# --------------------------------------------------------------------------------------------
def model_words(click_model: str) -> tuple[int, ...]:
    """Spawn-key prefix of ``click_model``'s sample stream (eight 32-bit words of a sha256)."""
    from duelbench.engine.seeding import key_words

    return key_words("zoghi2015_appendix_c", click_model)


def sample_subset(seed: int, click_model: str, K: int, i: int, n_arms: int = N_ARMS) -> np.ndarray:
    """Sample ``i`` of size ``K``: sorted uniform K-subset of ``range(n_arms)`` (int64).

    Depends only on (seed, click model, K, i) (reading Z5), never on the shard layout.
    """
    if not 1 <= K <= n_arms:
        raise AppendixCError(f"K must be in 1..{n_arms}, got {K}")
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(*model_words(click_model), int(K), int(i)))
    rng = np.random.Generator(np.random.PCG64(ss))
    return np.sort(rng.choice(n_arms, size=int(K), replace=False)).astype(np.int64)


def resolve_k_values(k_values, n_arms: int = N_ARMS) -> tuple[int, ...]:
    """``"all"`` -> 1..n_arms; a list -> its sorted distinct values (each checked in 1..n_arms)."""
    if k_values == "all":
        return tuple(range(1, n_arms + 1))
    try:
        ks = sorted({int(k) for k in k_values})
    except (TypeError, ValueError):
        raise AppendixCError(f"appendix_c.k_values must be 'all' or a list of integers, got {k_values!r}") from None
    bad = [k for k in ks if not 1 <= k <= n_arms]
    if bad or not ks:
        raise AppendixCError(f"appendix_c.k_values must be non-empty integers in 1..{n_arms}, got {k_values!r}")
    return tuple(ks)


def family_job(click_model: str, *, seed: int, k_values, samples_per_k: int, support_tol: float,
               mode: str = "full") -> dict:
    """The job of one click model's sample family (what every sample depends on)."""
    if click_model not in CLICK_MODELS:
        raise AppendixCError(f"appendix_c.click_models: unknown {click_model!r}; known: {list(CLICK_MODELS)}")
    if mode not in MODES:
        raise AppendixCError(f"mode must be one of {MODES}, got {mode!r}")
    return {"click_model": click_model, "seed": int(seed), "k_values": list(resolve_k_values(k_values)),
            "samples_per_k": int(samples_per_k), "support_tol": float(support_tol), "mode": mode}


def sample_pairs(job: Mapping, a: int, b: int) -> list[tuple[int, int]]:
    """The (K, i) of samples ``a .. b-1`` of the K-major enumeration of ``job``."""
    ks, n = job["k_values"], int(job["samples_per_k"])
    if not 0 <= a <= b <= len(ks) * n:
        raise AppendixCError(f"samples {a}..{b} outside the family's {len(ks) * n} samples")
    return [(int(ks[f // n]), f % n) for f in range(a, b)]


# --------------------------------------------------------------------------------------------
# per-sample statistics
# --------------------------------------------------------------------------------------------
def top_cycle(a: np.ndarray) -> np.ndarray:
    """Indices (sorted) of the top cycle / Smith set of the preference matrix ``a``.

    The smallest non-empty set S such that every member of S beats (p > 1/2) every non-member:
    the source strongly connected component of the graph with an edge i -> j whenever
    ``p_ji >= 1/2`` (j does not lose to i). Between two components the edges all point one way
    (the graph is complete), so that component is unique.
    """
    from scipy.sparse.csgraph import connected_components

    K = a.shape[0]
    if K == 1:
        return np.zeros(1, dtype=np.int64)
    resist = a.T >= 0.5  # resist[i, j]: p_ji >= 1/2, an edge i -> j
    np.fill_diagonal(resist, False)
    ncomp, lab = connected_components(resist, directed=True, connection="strong")
    if ncomp == 1:
        return np.arange(K, dtype=np.int64)
    src, dst = np.nonzero(resist)
    cross = lab[src] != lab[dst]
    has_out = np.zeros(ncomp, dtype=bool)
    has_out[lab[src[cross]]] = True
    top = np.flatnonzero(~has_out)
    if top.size != 1:  # pragma: no cover - impossible for p_ij + p_ji = 1
        raise AppendixCError(f"the 'does not lose to' graph has {top.size} closed components")
    return np.flatnonzero(lab == top[0]).astype(np.int64)


def von_neumann_supports(a: np.ndarray, tol: float) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(union support, solution support, top-cycle size), the LPs solved on the top cycle."""
    from duelbench.problems.winners import von_neumann_support

    S = top_cycle(a)
    if S.size == 1:
        return (int(S[0]),), (int(S[0]),), 1
    sub = np.ascontiguousarray(a[np.ix_(S, S)])
    union = tuple(int(S[k]) for k in von_neumann_support(sub, tol=tol, method="union"))
    solution = tuple(int(S[k]) for k in von_neumann_support(sub, tol=tol, method="solution"))
    return union, solution, int(S.size)


@dataclass(frozen=True)
class SampleStats:
    """The per-sample quantities of one preference matrix (indices local to the matrix)."""

    has_cw: bool
    C: int
    L_C: int
    delta: float
    delta_min: float
    smith: int
    winners: dict  # notion -> tuple of local indices

    @property
    def ratio(self) -> float:
        """``Delta^2 / Delta_min^2``; NaN when undefined (C = K or K = 1)."""
        return delta_ratio(self.delta, self.delta_min)


def delta_ratio(delta, delta_min):
    """``(delta / delta_min)^2``, NaN where delta is not finite (C = K) or delta_min is 0/NaN."""
    d = np.asarray(delta, dtype=float)
    m = np.asarray(delta_min, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (d / m) ** 2
    r = np.where(np.isfinite(d) & np.isfinite(m) & (m > 0), r, np.nan)
    return float(r) if r.ndim == 0 else r


def sample_statistics(a: np.ndarray, *, support_tol: float = 1e-9) -> SampleStats:
    """Every Appendix-C quantity of the (K, K) matrix ``a`` (see the module docstring)."""
    from duelbench.bounds.ccb import ccb_quantities
    from duelbench.problems import winners as W

    a = np.ascontiguousarray(a, dtype=np.float64)
    K = a.shape[0]
    cop = W.copeland_winners(a)
    has_cw = W.condorcet_winner(a) is not None
    if K >= 2:
        q = ccb_quantities(a)
        if tuple(q.winners) != tuple(cop):  # one source of truth: both count p_ij > 1/2
            raise AppendixCError(f"Copeland winners disagree: {q.winners} vs {cop}")
        C, L_C, delta, delta_min = q.C, q.L_C, q.delta_def36, q.delta_globalmin
    else:
        C, L_C, delta, delta_min = 1, 0, float("nan"), float("nan")
    vn_union, vn_solution, smith = von_neumann_supports(a, support_tol)
    winners = {
        "copeland": cop,
        "borda": W.borda_winners(a),
        "vn_union": vn_union,
        "vn_solution": vn_solution,
        "rw_a": W.random_walk_winners(a, "A"),
        "rw_b": W.random_walk_winners(a, "B"),
        "rw_c": W.random_walk_winners(a, "C"),
    }
    return SampleStats(has_cw=has_cw, C=int(C), L_C=int(L_C), delta=float(delta), delta_min=float(delta_min),
                       smith=smith, winners=winners)


# --------------------------------------------------------------------------------------------
# the sample function of the families
# --------------------------------------------------------------------------------------------
def set_columns(name: str) -> list[str]:
    """The word columns of the stored set ``name`` (an entry of :data:`SETS`)."""
    return [f"{name}_w{j}" for j in range(WORDS)]


def mask_words(arms) -> np.ndarray:
    """The set of rankers ``arms`` as :data:`WORDS` uint64 words (ranker x: bit x % 64 of word x // 64)."""
    arms = np.asarray(arms, dtype=np.int64).reshape(-1)
    w = np.zeros(WORDS, dtype=np.uint64)
    np.bitwise_or.at(w, arms >> 6, np.left_shift(np.uint64(1), (arms & 63).astype(np.uint64)))
    return w


def compute_samples(P: np.ndarray, click_model: str, seed: int, pairs: Sequence[tuple[int, int]], *,
                    support_tol: float = 1e-9, mode: str = "full", progress=None) -> dict[str, np.ndarray]:
    """The per-sample columns of ``pairs`` ((K, i) list) drawn from the full matrix ``P``
    (the columns of the module docstring)."""
    from duelbench.problems.winners import condorcet_winner

    if mode not in MODES:
        raise AppendixCError(f"mode must be one of {MODES}, got {mode!r}")
    P = np.asarray(P, dtype=np.float64)
    if P.shape != (N_ARMS, N_ARMS):
        raise AppendixCError(f"{click_model}: expected a {N_ARMS} x {N_ARMS} matrix, got {P.shape}")
    n = len(pairs)
    out = {"k": np.zeros(n, dtype=np.int16), "index": np.zeros(n, dtype=np.int32), "has_cw": np.zeros(n, dtype=bool),
           "C": np.full(n, -1, dtype=np.int16), "L_C": np.full(n, -1, dtype=np.int16),
           "smith": np.full(n, -1, dtype=np.int16), "delta": np.full(n, np.nan), "delta_min": np.full(n, np.nan)}
    sets = {name: np.zeros((n, WORDS), dtype=np.uint64) for name in SETS}
    for row, (K, i) in enumerate(pairs):
        s = sample_subset(seed, click_model, K, i)
        out["k"][row], out["index"][row] = K, i
        sets["subset"][row] = mask_words(s)
        if mode == "condorcet":
            out["has_cw"][row] = condorcet_winner(P[np.ix_(s, s)]) is not None
        else:
            st = sample_statistics(P[np.ix_(s, s)], support_tol=support_tol)
            out["has_cw"][row] = st.has_cw
            out["C"][row], out["L_C"][row], out["smith"][row] = st.C, st.L_C, st.smith
            out["delta"][row], out["delta_min"][row] = st.delta, st.delta_min
            for notion in NOTIONS:
                sets[f"winners_{notion}"][row] = mask_words(s[list(st.winners[notion])])
        if progress is not None:
            progress(row + 1, n)
    for name, words in sets.items():
        out.update({col: words[:, j].copy() for j, col in enumerate(set_columns(name))})
    return out


def samples(job: Mapping, a: int, b: int) -> dict[str, np.ndarray]:
    """The sample function of a click model's family (:func:`family_job`): samples ``a .. b-1``."""
    from duelbench.data.registry import load_matrix

    model = job["click_model"]
    pairs = sample_pairs(job, a, b)
    step = max(1, len(pairs) // 10)

    def progress(done, total):
        if done % step == 0 or done == total:
            K, i = pairs[done - 1]
            print(f"[{model}] {done}/{total} samples (K={K}, i={i})", flush=True)

    return compute_samples(load_matrix(model).values, model, int(job["seed"]), pairs,
                           support_tol=float(job["support_tol"]), mode=job["mode"], progress=progress)
