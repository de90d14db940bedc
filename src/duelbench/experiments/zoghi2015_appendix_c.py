"""Appendix C of Zoghi, Karnin, Whiteson & de Rijke (2015): winner statistics of random K-subsets.

Paper text ``shared/papers/001_46dfb6e9ef9a8784.txt`` (``Lnnn`` below), Appendix C (L420-L457):
Figure 4 (probability of a Condorcet winner), Table 1 (overlap of winner notions), Figure 5
(C and L_C) and Figure 6 (Delta^2 / Delta_min^2), all computed on the same random K-armed
submatrices of the 136-ranker MSLR matrices (readings Z5-Z7 of ``data/published/zoghi2015.yaml``).

Sampling (Z5)
-------------
Sample ``i`` of size ``K`` of click model ``m`` is the sorted uniform K-subset (without
replacement) of the 136 rankers drawn by ``Generator(PCG64(SeedSequence(seed, spawn_key=(*w(m),
K, i)))).choice(136, K, replace=False)``, where ``w(m)`` are the eight 32-bit words of
sha256("zoghi2015_appendix_c", m) (:func:`duelbench.engine.seeding.key_words`). It depends
only on (seed, click model, K, i): how the samples are split into shards changes nothing
(:func:`sample_subset`). Samples are enumerated K-major (all samples of the first K, then the
next K, ...); a shard holds a contiguous range of that enumeration (:class:`AppendixCShard`).

Per sample (:func:`sample_statistics`)
--------------------------------------
* ``has_cw``: a Condorcet winner exists (:func:`duelbench.problems.winners.condorcet_winner`).
* ``C``, ``L_C``: number of Copeland winners and their (largest) number of losses, and
  ``delta`` / ``delta_min``: Definition 3.6's Delta and Definition 3.2's Delta_min, all from
  :func:`duelbench.bounds.ccb.ccb_quantities` (``delta_def36`` and ``delta_globalmin``). For
  K = 1: C = 1, L_C = 0, the deltas undefined (NaN).
* winner sets: Copeland (most wins), Borda (largest sum of p_ij), von Neumann support (``union``
  of the supports of all optimal strategies, and ``solution``: the support of the LP solution),
  random-walk winners of the chains RW-A, RW-B, RW-C, all from :mod:`duelbench.problems.winners`.
  Stored as 136-bit masks over the original ranker indices.
* ``smith``: size of the top cycle (Smith set; see below).

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

Aggregates (:func:`load_records` then the table functions)
----------------------------------------------------------
* Figure 4: ``P_K`` = fraction of samples with a Condorcet winner, binomial s.e.
  ``sqrt(P_K (1 - P_K) / n_K)``.
* Table 1: for each pair of notions, the percentage of samples whose two winner sets intersect,
  pooled with equal weight over K (the mean over K of the per-K proportions, Z6); its s.e. is
  that of the mean of independent per-K binomial proportions,
  ``sqrt(sum_K p_K (1 - p_K) / n_K) / n_K-values`` (times 100).
  ``copeland_in_vn_support``: every Copeland winner is in the von Neumann support.
* Figure 5: distribution of C and of L_C per K.
* Figure 6: per K, mean and median of ``Delta^2 / Delta_min^2`` over samples with C < K (Z7).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

#: Winner notions stored per sample, in this order (axis 1 of the ``winners`` array).
NOTIONS = ("copeland", "borda", "vn_union", "vn_solution", "rw_a", "rw_b", "rw_c")
#: Table 1's four notions (rows and columns of ``table1_overlap.csv``).
TABLE1_NOTIONS = ("copeland", "von_neumann", "borda", "random_walk")
#: Click models whose matrices can be sampled (dataset registry names).
CLICK_MODELS = ("mslr_informational", "mslr_navigational", "mslr_perfect")
#: Number of rankers of the MSLR matrices.
N_ARMS = 136
#: Version of the shard file layout (bump when the stored arrays change).
SHARD_FORMAT = 1
#: What a shard computes per sample: every quantity, or only whether a Condorcet winner exists.
MODES = ("full", "condorcet")


class AppendixCError(ValueError):
    """Bad Appendix-C settings or shard files; the message says what and where."""


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
# shards
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AppendixCShard:
    """Samples ``start .. stop-1`` of the K-major enumeration of one click model's samples."""

    fidelity: str
    click_model: str
    seed: int
    k_values: tuple
    samples_per_k: int
    start: int
    stop: int
    support_tol: float
    path: str
    mode: str = "full"

    def pairs(self) -> list[tuple[int, int]]:
        """The (K, i) of each sample of the shard, in order."""
        n = self.samples_per_k
        return [(self.k_values[f // n], f % n) for f in range(self.start, self.stop)]

    def job_params(self) -> str:
        """Canonical JSON of the job (a Snakemake ``params`` value; :func:`run_shard_job` reads it)."""
        return json.dumps({
            "fidelity": self.fidelity, "click_model": self.click_model, "seed": self.seed,
            "k_values": list(self.k_values), "samples_per_k": self.samples_per_k, "start": self.start,
            "stop": self.stop, "support_tol": self.support_tol, "format": SHARD_FORMAT, "mode": self.mode,
        }, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_job_params(cls, text: str, path: str) -> "AppendixCShard":
        p = json.loads(text)
        return cls(fidelity=p["fidelity"], click_model=p["click_model"], seed=int(p["seed"]),
                   k_values=tuple(int(k) for k in p["k_values"]), samples_per_k=int(p["samples_per_k"]),
                   start=int(p["start"]), stop=int(p["stop"]), support_tol=float(p["support_tol"]), path=path,
                   mode=str(p.get("mode", "full")))


def layout_name(seed: int, k_values: Sequence[int], samples_per_k: int, support_tol: float, mode: str = "full") -> str:
    """Folder naming what a shard's content depends on: ``seed<s>-n<n>-<mode>-<hash>``."""
    key = json.dumps({"k": list(map(int, k_values)), "tol": float(support_tol), "format": SHARD_FORMAT},
                     sort_keys=True, separators=(",", ":"))
    return f"seed{int(seed)}-n{int(samples_per_k)}-{mode}-{hashlib.sha256(key.encode()).hexdigest()[:10]}"


def plan_shards(*, fidelity: str, click_models: Sequence[str], seed: int, k_values, samples_per_k: int,
                samples_per_shard: int, support_tol: float, full_models: Sequence[str] | None = None,
                root: str = "results") -> list[AppendixCShard]:
    """Every Appendix-C shard: per click model, the K-major enumeration cut into chunks.

    Models in ``full_models`` (default: all) get every per-sample quantity (mode ``full``), the
    others only the Condorcet indicator (mode ``condorcet``: Figure 4 needs nothing else).

    Path: ``<root>/<fidelity>/zoghi2015_appendix_c/<click model>/<layout>/samples-<a>-<b>.npz``.
    """
    ks = resolve_k_values(k_values)
    if samples_per_k < 1 or samples_per_shard < 1:
        raise AppendixCError(f"samples_per_k and samples_per_shard must be >= 1 (got {samples_per_k}, "
                             f"{samples_per_shard})")
    unknown = [m for m in click_models if m not in CLICK_MODELS]
    if unknown:
        raise AppendixCError(f"appendix_c.click_models: unknown {unknown}; known: {list(CLICK_MODELS)}")
    total = len(ks) * int(samples_per_k)
    full = set(click_models if full_models is None else full_models)
    out = []
    for model in click_models:
        mode = "full" if model in full else "condorcet"
        layout = layout_name(seed, ks, samples_per_k, support_tol, mode)
        for a in range(0, total, int(samples_per_shard)):
            b = min(a + int(samples_per_shard), total)
            path = os.path.normpath(f"{root}/{fidelity}/zoghi2015_appendix_c/{model}/{layout}/samples-{a}-{b}.npz")
            out.append(AppendixCShard(fidelity=fidelity, click_model=model, seed=int(seed), k_values=ks,
                                      samples_per_k=int(samples_per_k), start=a, stop=b,
                                      support_tol=float(support_tol), path=path, mode=mode))
    return out


def _mask(subset: np.ndarray, local: Iterable[int], n_arms: int) -> np.ndarray:
    m = np.zeros(n_arms, dtype=bool)
    m[subset[list(local)]] = True
    return np.packbits(m)


def compute_samples(P: np.ndarray, click_model: str, seed: int, pairs: Sequence[tuple[int, int]], *,
                    support_tol: float = 1e-9, mode: str = "full", progress=None) -> dict[str, np.ndarray]:
    """The per-sample arrays of ``pairs`` ((K, i) list) drawn from the full matrix ``P``.

    Keys: ``k``, ``index``, ``subset`` (packed 136-bit masks), ``has_cw``, ``C``, ``L_C``,
    ``delta``, ``delta_min``, ``smith``, ``winners`` (n x len(NOTIONS) x bytes, packed masks over
    the original ranker indices), ``seconds`` and ``cpu_seconds`` (wall and CPU time per sample). In mode ``condorcet`` only
    ``has_cw`` is computed: ``C``, ``L_C``, ``smith`` are -1, the deltas NaN, the masks empty.
    """
    from duelbench.problems.winners import condorcet_winner

    if mode not in MODES:
        raise AppendixCError(f"mode must be one of {MODES}, got {mode!r}")
    P = np.asarray(P, dtype=np.float64)
    n_arms = P.shape[0]
    n = len(pairs)
    nbytes = (n_arms + 7) // 8
    out = {
        "k": np.zeros(n, dtype=np.int16), "index": np.zeros(n, dtype=np.int32),
        "subset": np.zeros((n, nbytes), dtype=np.uint8), "has_cw": np.zeros(n, dtype=bool),
        "C": np.zeros(n, dtype=np.int16), "L_C": np.zeros(n, dtype=np.int16),
        "delta": np.zeros(n), "delta_min": np.zeros(n), "smith": np.zeros(n, dtype=np.int16),
        "winners": np.zeros((n, len(NOTIONS), nbytes), dtype=np.uint8), "seconds": np.zeros(n),
        "cpu_seconds": np.zeros(n),
    }
    for row, (K, i) in enumerate(pairs):
        t0, c0 = time.perf_counter(), time.process_time()
        s = sample_subset(seed, click_model, K, i, n_arms)
        out["k"][row], out["index"][row] = K, i
        out["subset"][row] = _mask(s, range(K), n_arms)
        if mode == "condorcet":
            out["has_cw"][row] = condorcet_winner(P[np.ix_(s, s)]) is not None
            out["C"][row] = out["L_C"][row] = out["smith"][row] = -1
            out["delta"][row] = out["delta_min"][row] = np.nan
            out["seconds"][row] = time.perf_counter() - t0
            out["cpu_seconds"][row] = time.process_time() - c0
            if progress is not None:
                progress(row + 1, n)
            continue
        st = sample_statistics(P[np.ix_(s, s)], support_tol=support_tol)
        out["has_cw"][row] = st.has_cw
        out["C"][row], out["L_C"][row], out["smith"][row] = st.C, st.L_C, st.smith
        out["delta"][row], out["delta_min"][row] = st.delta, st.delta_min
        for j, notion in enumerate(NOTIONS):
            out["winners"][row, j] = _mask(s, st.winners[notion], n_arms)
        out["seconds"][row] = time.perf_counter() - t0
        out["cpu_seconds"][row] = time.process_time() - c0
        if progress is not None:
            progress(row + 1, n)
    return out


def _atomic_npz(path: str, arrays: Mapping[str, np.ndarray]) -> None:
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".npz", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez_compressed(fh, **arrays)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def run_shard(shard: AppendixCShard, *, log=print) -> dict[str, np.ndarray]:
    """Compute one shard and write it (npz, compressed) with its provenance sidecar."""
    from duelbench.data.registry import load_matrix
    from duelbench.provenance.sidecar import Timer, write_sidecar

    P = load_matrix(shard.click_model)
    pairs = shard.pairs()
    step = max(1, len(pairs) // 10)

    def progress(done, total):
        if done % step == 0 or done == total:
            K, i = pairs[done - 1]
            log(f"[{shard.click_model}] {done}/{total} samples (K={K}, i={i})")

    with Timer() as t:
        arrays = compute_samples(P.values, shard.click_model, shard.seed, pairs, support_tol=shard.support_tol,
                                 mode=shard.mode, progress=progress)
    header = {"format": SHARD_FORMAT, "click_model": shard.click_model, "seed": shard.seed,
              "k_values": list(shard.k_values), "samples_per_k": shard.samples_per_k, "start": shard.start,
              "stop": shard.stop, "support_tol": shard.support_tol, "notions": list(NOTIONS),
              "n_arms": int(P.K), "matrix": P.identity, "mode": shard.mode}
    seconds, cpu = arrays.pop("seconds"), arrays.pop("cpu_seconds")
    _atomic_npz(shard.path, {"header": np.array(json.dumps(header, sort_keys=True)), **arrays})
    by_k, cpu_by_k = {}, {}
    for K in np.unique(arrays["k"]):
        sel = arrays["k"] == K
        by_k[int(K)] = float(seconds[sel].mean())
        cpu_by_k[int(K)] = float(cpu[sel].mean())
    write_sidecar(
        shard.path, config=json.loads(shard.job_params()),
        seeds={"seed": shard.seed, "stream": "SeedSequence(seed, spawn_key=(*key_words('zoghi2015_appendix_c', click model), K, i))"},
        extra={"experiment": "zoghi2015", "part": "appendix_c", "samples": len(pairs), "notions": list(NOTIONS)},
        run_info={"samples_per_second": len(pairs) / t.wall if t.wall > 0 else None,
                  "mean_seconds_per_sample_by_k": by_k, "mean_cpu_seconds_per_sample_by_k": cpu_by_k},
        **t.as_kwargs(),
    )
    return arrays


# --------------------------------------------------------------------------------------------
# loading shards
# --------------------------------------------------------------------------------------------
@dataclass
class Records:
    """All samples of one click model, sorted by (K, i)."""

    click_model: str
    arrays: dict
    n_arms: int
    mode: str = "full"

    @property
    def full(self) -> bool:
        """Whether every per-sample quantity was computed (else only ``has_cw``)."""
        return self.mode == "full"

    @property
    def k(self) -> np.ndarray:
        return self.arrays["k"].astype(np.int64)

    def k_values(self) -> np.ndarray:
        return np.unique(self.k)

    def notion(self, name: str) -> np.ndarray:
        """Packed winner masks of ``name`` (a :data:`NOTIONS` entry), shape (n, bytes)."""
        return self.arrays["winners"][:, NOTIONS.index(name)]

    def overlap(self, a: str, b: str) -> np.ndarray:
        """Per sample: the winner sets of notions ``a`` and ``b`` intersect."""
        return np.any(self.notion(a) & self.notion(b), axis=1)

    def contained(self, a: str, b: str) -> np.ndarray:
        """Per sample: every winner of notion ``a`` is a winner of notion ``b``."""
        return ~np.any(self.notion(a) & ~self.notion(b), axis=1)

    def ratio(self) -> np.ndarray:
        """``Delta^2 / Delta_min^2`` per sample (NaN when undefined)."""
        return delta_ratio(self.arrays["delta"], self.arrays["delta_min"])

    def winner_indices(self, row: int, name: str) -> tuple[int, ...]:
        bits = np.unpackbits(self.notion(name)[row])[: self.n_arms]
        return tuple(np.flatnonzero(bits).tolist())


def load_records(paths: Sequence[str], *, expect: Mapping[str, tuple[Sequence[int], int]] | None = None
                 ) -> dict[str, Records]:
    """Concatenate shard files per click model, sorted by (K, i).

    ``expect`` maps a click model to (k_values, samples_per_k); the loaded samples must then be
    exactly those (no gap, no duplicate), else :class:`AppendixCError`.
    """
    parts: dict[str, list[dict]] = {}
    n_arms: dict[str, int] = {}
    modes: dict[str, str] = {}
    for p in paths:
        with np.load(p, allow_pickle=False) as z:
            header = json.loads(str(z["header"]))
            if header.get("format") != SHARD_FORMAT or list(header.get("notions", [])) != list(NOTIONS):
                raise AppendixCError(f"{p}: shard format {header.get('format')} / notions {header.get('notions')} "
                                     f"differ from this code's ({SHARD_FORMAT}, {list(NOTIONS)}); rebuild the shard")
            arrays = {k: z[k] for k in z.files if k != "header"}
        model = header["click_model"]
        mode = header.get("mode", "full")
        if modes.setdefault(model, mode) != mode:
            raise AppendixCError(f"{p}: mode {mode!r} differs from the other {model} shards ({modes[model]!r})")
        parts.setdefault(model, []).append(arrays)
        n_arms[model] = int(header["n_arms"])
    out = {}
    for model, chunks in parts.items():
        arrays = {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}
        order = np.lexsort((arrays["index"], arrays["k"]))
        arrays = {k: v[order] for k, v in arrays.items()}
        key = arrays["k"].astype(np.int64) * 10**9 + arrays["index"]
        if np.any(np.diff(key) == 0):
            raise AppendixCError(f"{model}: duplicate samples across the shards")
        if expect is not None and model in expect:
            ks, n = expect[model]
            want = np.repeat(np.asarray(ks, dtype=np.int64), n) * 10**9 + np.tile(np.arange(n), len(ks))
            if key.shape != want.shape or not np.array_equal(key, want):
                raise AppendixCError(f"{model}: the shards hold {key.size} samples, expected {want.size} "
                                     f"({len(ks)} values of K x {n})")
        out[model] = Records(click_model=model, arrays=arrays, n_arms=n_arms[model], mode=modes[model])
    if expect is not None:
        missing = sorted(set(expect) - set(out))
        if missing:
            raise AppendixCError(f"no shard of click model(s) {missing}")
    return out


# --------------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------------
def per_k_proportion(k: np.ndarray, flag: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(K values, proportion of ``flag`` per K, samples per K)."""
    ks, inv = np.unique(k, return_inverse=True)
    n = np.bincount(inv, minlength=ks.size)
    hits = np.bincount(inv, weights=np.asarray(flag, dtype=float), minlength=ks.size)
    return ks, hits / n, n


def pooled_percentage(k: np.ndarray, flag: np.ndarray) -> tuple[float, float]:
    """Equal-weight pooling over K (Z6): (100 x mean_K p_K, its binomial s.e. x 100)."""
    _, p, n = per_k_proportion(k, flag)
    mean = float(p.mean())
    se = float(np.sqrt(np.sum(p * (1 - p) / n)) / p.size)
    return 100.0 * mean, 100.0 * se


def condorcet_table(records: Mapping[str, Records]) -> "object":
    """Figure 4: columns ``K, p_condorcet, n_samples, stderr, click_model`` (one block per model)."""
    import pandas as pd

    frames = []
    for model, rec in records.items():
        ks, p, n = per_k_proportion(rec.k, rec.arrays["has_cw"])
        frames.append(pd.DataFrame({"K": ks, "p_condorcet": p, "n_samples": n,
                                    "stderr": np.sqrt(p * (1 - p) / n), "click_model": model}))
    return pd.concat(frames, ignore_index=True)


def _table1_notion_map(random_walk: str, von_neumann: str) -> dict[str, str]:
    return {"copeland": "copeland", "borda": "borda", "von_neumann": f"vn_{von_neumann}",
            "random_walk": f"rw_{random_walk.lower()}"}


#: Table-1 variants: name -> (random-walk chain, von Neumann support method, label).
def table1_variants(main_rw: str, main_vn: str) -> dict[str, tuple[str, str, str]]:
    """The main reading and its labelled variants (other chains; the other support method)."""
    out = {"main": (main_rw, main_vn, f"main reading: RW-{main_rw}, von Neumann {main_vn} support")}
    for ch in ("A", "B", "C"):
        if ch != main_rw:
            out[f"rw_{ch.lower()}"] = (ch, main_vn, f"variant: random walk RW-{ch}")
    other = "solution" if main_vn == "union" else "union"
    out[f"vn_{other}"] = (main_rw, other, f"variant: von Neumann {other} support")
    return out


def table1_long(rec: Records, main_rw: str = "C", main_vn: str = "union") -> "object":
    """Every Table-1 cell of the main reading and of each variant, pooled over K (Z6).

    Columns: ``variant, row, column, percent, se, calibrated, label``. ``row = column`` cells are
    100 (a set meets itself). Extra rows ``copeland_in_vn_support`` (column ``von_neumann``).
    ``calibrated`` is true for cells that involve the random walk (reading Z6).
    """
    import pandas as pd

    rows = []
    k = rec.k
    for variant, (rw, vn, label) in table1_variants(main_rw, main_vn).items():
        m = _table1_notion_map(rw, vn)
        for i, a in enumerate(TABLE1_NOTIONS):
            for b in TABLE1_NOTIONS:
                if a == b:
                    pct, se = 100.0, 0.0
                else:
                    pct, se = pooled_percentage(k, rec.overlap(m[a], m[b]))
                rows.append({"variant": variant, "row": a, "column": b, "percent": pct, "se": se,
                             "calibrated": "random_walk" in (a, b) and a != b, "label": label})
        pct, se = pooled_percentage(k, rec.contained("copeland", m["von_neumann"]))
        rows.append({"variant": variant, "row": "copeland_in_vn_support", "column": "von_neumann", "percent": pct,
                     "se": se, "calibrated": False, "label": label})
    return pd.DataFrame(rows)


def table1_matrix(long, variant: str = "main", value: str = "percent") -> "object":
    """The 4 x 4 table (+ ``copeland_in_vn_support`` line, value in column ``copeland``)."""
    import pandas as pd

    sub = long[long["variant"] == variant]
    data = {c: [] for c in TABLE1_NOTIONS}
    index = list(TABLE1_NOTIONS) + ["copeland_in_vn_support"]
    for r in TABLE1_NOTIONS:
        for c in TABLE1_NOTIONS:
            data[c].append(float(sub[(sub["row"] == r) & (sub["column"] == c)][value].iloc[0]))
    extra = float(sub[sub["row"] == "copeland_in_vn_support"][value].iloc[0])
    data["copeland"].append(extra)
    for c in TABLE1_NOTIONS[1:]:
        data[c].append(np.nan)
    df = pd.DataFrame(data, index=pd.Index(index, name="notion"))
    return df


def c_lc_distribution(records: Mapping[str, Records]) -> "object":
    """Figure 5: columns ``click_model, K, quantity (C | L_C), value, count, percent``."""
    import pandas as pd

    frames = []
    for model, rec in records.items():
        if not rec.full:
            continue
        k = rec.k
        for q in ("C", "L_C"):
            v = rec.arrays[q].astype(np.int64)
            pairs, counts = np.unique(np.stack([k, v], axis=1), axis=0, return_counts=True)
            nk = dict(zip(*np.unique(k, return_counts=True)))
            frames.append(pd.DataFrame({
                "click_model": model, "K": pairs[:, 0], "quantity": q, "value": pairs[:, 1], "count": counts,
                "percent": 100.0 * counts / np.array([nk[kk] for kk in pairs[:, 0]]),
            }))
    return pd.concat(frames, ignore_index=True)


def delta_ratio_table(rec: Records) -> "object":
    """Figure 6: ``K, mean_ratio, median_ratio, stderr, n_defined, n_samples`` for every K >= 2.

    Samples with C = K are excluded (Delta undefined, Z7); K with no defined sample give NaN.
    """
    import pandas as pd

    k = rec.k
    r = rec.ratio()
    rows = []
    for K in np.unique(k):
        if K < 2:
            continue
        x = r[(k == K) & np.isfinite(r)]
        n_all = int(np.count_nonzero(k == K))
        rows.append({"K": int(K), "mean_ratio": float(x.mean()) if x.size else np.nan,
                     "median_ratio": float(np.median(x)) if x.size else np.nan,
                     "stderr": float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else np.nan,
                     "n_defined": int(x.size), "n_samples": n_all})
    return pd.DataFrame(rows, columns=["K", "mean_ratio", "median_ratio", "stderr", "n_defined", "n_samples"])


def cost_table(sidecars: Sequence[str]) -> "object":
    """Cost per sample from shard sidecars (``run.info``): columns ``click_model, mode, K,
    seconds_per_sample, cpu_seconds_per_sample`` (host dependent)."""
    import pandas as pd

    acc: dict[tuple[str, str, int], list[list[float]]] = {}
    for path in sidecars:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        cfg = doc["content"]["config"]
        info = doc["run"]["info"]
        wall = info.get("mean_seconds_per_sample_by_k") or {}
        cpu = info.get("mean_cpu_seconds_per_sample_by_k") or {}
        for K, w in wall.items():
            acc.setdefault((cfg["click_model"], cfg.get("mode", "full"), int(K)), []).append(
                [float(w), float(cpu.get(K, np.nan))])
    rows = [{"click_model": m, "mode": mode, "K": K, "seconds_per_sample": float(np.mean([v[0] for v in vals])),
             "cpu_seconds_per_sample": float(np.mean([v[1] for v in vals]))}
            for (m, mode, K), vals in sorted(acc.items())]
    return pd.DataFrame(rows, columns=["click_model", "mode", "K", "seconds_per_sample", "cpu_seconds_per_sample"])
