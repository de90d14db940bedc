"""The Borda algorithms of Chen, Du, Huang & Zhao (ICML 2020), Section 3.

* The reduction of Section 3.1 (Eq. 4, L95–L107): edge ``e`` at position ``j`` is a base arm;
  one sample draws ``M′`` from the sampler ``𝒮(η)`` and plays the duel ``(e, e(M′, j))``, with
  ``X = 1`` iff ``e`` wins.  Under the uniform law on ``ℳ`` its mean is the edge's Borda weight
  ``w(e) = (1/|ℳ|) Σ_M p(e, e(M, j))``, and ``w(M) = Σ_{e∈M} w(e) = ℓ·B(M)`` (L99–L101, B.1,
  L528–L557): :func:`reduced_samples`, :func:`expected_reduced_reward`.
* Samplers ``𝒮(η)`` (Definition 1, L109–L117) over the enumerated matchings
  (:func:`sampler_probabilities`): ``"exact"``, uniform on ``ℳ`` (``d_tv = 0 ≤ η``, a valid
  ``𝒮(η)`` for every ``η``), and ``"biased"``, ``π′ = (1 − η)·Uniform + η·δ_{M_bad}`` with
  ``d_tv(π′, π) = η(1 − 1/|ℳ|) ≤ η``; ``M_bad`` defaults to the Borda-worst matching.
* :func:`clucb_borda_pac` — Algorithm 1 CLUCB-Borda-PAC(δ, ε) (L127–L150), and
  :func:`clucb_borda_exact` — Algorithm 5 CLUCB-Borda-Exact(δ) (L745–L775) with the labelled
  variants below.  Both run the compiled loop of :mod:`duelbench.cpe.borda_kernel` and return a
  :class:`BordaResult`.

Algorithm 5 variants (``variant=``):

* ``"V0"`` (default) — as printed.  Epochs ``q = 1, 2, …`` with ``ε_q = 2^−q``,
  ``δ_q = δ/(2q²)``, ``η_q = ε_q/8``; every statistic and ``t`` restart in each epoch (L751);
  return ``M_t`` when ``w̃(M̃_t) = w̃(M_t)`` (L763), go to epoch ``q + 1`` when
  ``w̃(M̃_t) − w̃(M_t) ≤ ℓ·ε_q`` (L767–L769), else sample ``z_t``.  The proof of Theorem 2 says
  the run ends in epoch ``q* = ⌊log₂(ℓ/Δ_min)⌋ + 1`` (L800), but its step L802–L810 is no
  contradiction when ``M_t = M*``: the difference usually shrinks in small steps through
  ``(0, ℓ·ε_q]``, so the epoch breaks before the test of L763 holds, and V0 may run for many
  more epochs.
  It is implemented as printed; ``samples_per_epoch`` shows where the samples go.
* ``"V1"`` (radius break) — go to epoch ``q + 1`` only when
  ``max_{e ∈ M̃_t Δ M_t} c_t(e) ≤ ε_q/4``.  This implies line 22's condition
  (``w̃(M̃_t) − w̃(M_t) ≤ w̄(M̃_t) − w̄(M_t) + 2ℓ·ε_q/2 ≤ ℓ·ε_q``, the computation of case (ii),
  L696–L701), and the return test is unchanged, so correctness (L783–L794) still holds.
* ``"V2"`` — with the exact sampler the bias is 0: no ``ε`` terms, no epochs, one loop until
  ``w̃(M̃_t) = w̃(M_t)`` with the radius ``sqrt(ln(4Kt³/δ)/(2T_t(e)))``; this is CLUCB of Chen
  et al. (2014) on the reduced arms.  Only the exact sampler is accepted.

Decisions
---------
* D1 ``radius_count`` — ``"K"`` (default, as printed: ``c_t(e) = sqrt(ln(4Kt³/δ)/(2T_t(e)))``,
  L133 and L754) or ``"m"``.  The proof of Theorem 1 bounds the failure of one edge at one ``t``
  by ``δ/(2Kt²)`` (L648–L656) and then takes a union bound over ``t`` and the ``m`` edges
  (L674), which gives ``m·δ·π²/(12K)``, above ``δ`` when ``m > 12K/π²``; ``"m"`` puts ``m`` in
  place of ``K`` and makes the union bound ``δπ²/12 < δ``.
* D2 ``self_duel`` — ``M′`` may hold ``z_t`` itself, so line 21 (L148) plays the duel
  ``(z_t, z_t)``.  ``"coin"`` (default): a Bernoulli(``p(e, e) = 1/2``, L62) outcome, as for any
  duel, which keeps the sample's mean equal to ``w(e)`` (Eq. 4 sums over every ``M``, those
  holding ``e`` included); ``"half"``: record ``X = 1/2``.  Either way the round counts as one
  sample; :class:`BordaResult` reports real duels and self-duels separately.
* D3 the running mean of line 22 (L149) is kept as (sum of observations)/``T_t(e)``, equal to the
  printed recursion ``(w̄·T + X)/(T + 1)`` up to rounding, and without its drift.
* D4 ties — every argmax takes the lowest index: ``z_t`` (L146) the lowest edge index among
  the largest radii; ``MWMC`` (L132, L141) the lowest row of the lexicographic table of
  ``matching.enumerate_matchings`` among the rows whose weight is within
  :data:`~duelbench.cpe.borda_kernel.TIE_TOL` of the maximum, i.e. the lexicographically
  smallest maximum-weight matching (weights summed in position order).  The first round
  (``w̄ = 0``) is such a tie: ``M_1`` is the first row.
* D5 the exact test of Algorithm 5 (L763) is ``w̃(M̃_t) − w̃(M_t) ≤ TIE_TOL = 10⁻¹²``: rounding
  of the sums only (it holds in particular when ``M̃_t = M_t``); the correctness argument
  (L787–L792) needs only ``w̃(M_t) ≥ w̃(M)`` for all ``M``, which this gives up to rounding.
* D6 ``max_samples`` — a run that would sample once more after ``max_samples`` samples stops
  with ``capped=True`` and ``output=None``; ``last`` holds the ``M_t`` of that round (the
  empirical best).  A run whose stopping test holds right after its last allowed sample is not
  capped.  ``None`` (default) is no cap, as printed.
* D7 randomness — ``M′`` is a row of the enumerated table: each sampled round draws two
  uniforms ``u₁, u₂`` (``rng.random()``, in that order) from one ``numpy.random.Generator``
  (``default_rng(SeedSequence(seed))``); ``u₁`` picks the row (uniform: ``⌊u₁·|ℳ|⌋``; biased:
  ``M_bad`` if ``u₁ < η``, else ``⌊(u₁ − η)/(1 − η)·|ℳ|⌋``), ``u₂`` the duel (``X = 1`` iff
  ``u₂ < p(z_t, e′)``, drawn for self-duels too).  ``matching.MatchingCounter`` (an exact
  uniform sampler of the same law) is not used, so results depend only on (instance, options,
  seed), identically on the compiled and the pure-Python path.
* D8 the biased sampler's ``η`` is the algorithm's: ``ε/8`` (L129) in Algorithm 1, ``ε_q/8``
  (L750) in epoch ``q`` of Algorithm 5; the whole allowed bias sits on one matching.
* D9 ``MWMC`` is an argmax over the enumerated ``ℳ`` (at most :data:`MAX_ENUMERATED` rows),
  exact for the small instances run here; :func:`enumerated_mwmc` exposes it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import borda_kernel as _k
from .exact import matvec
from .hardness import borda_weights
from .instance import BipartiteInstance
from .matching import enumerate_matchings

__all__ = ["BordaResult", "clucb_borda_pac", "clucb_borda_exact", "reduced_samples", "expected_reduced_reward",
           "sampler_probabilities", "tv_distance", "enumerated_mwmc", "borda_worst", "SAMPLERS", "RADIUS_COUNTS",
           "SELF_DUELS", "EXACT_VARIANTS", "MAX_ENUMERATED", "TIE_TOL"]

SAMPLERS = ("exact", "biased")
RADIUS_COUNTS = ("K", "m")
SELF_DUELS = ("coin", "half")
EXACT_VARIANTS = ("V0", "V1", "V2")
#: Largest ``|ℳ|`` enumerated for the table oracle and sampler.
MAX_ENUMERATED = 100_000
TIE_TOL = _k.TIE_TOL


@dataclass(frozen=True, eq=False)
class BordaResult:
    """Outcome and counts of one run of Algorithm 1 or 5.

    Attributes
    ----------
    output : ndarray or None
        The returned matching (edge indices in position order); None when capped.
    samples : int
        Sampled rounds = duels played, self-duels included (the sample complexity).
    real_duels, self_duels : int
        Duels ``(z_t, e′)`` with ``e′ ≠ z_t`` and with ``e′ = z_t``.
    epochs : int
        Epoch ``q`` of the return (or of the cap) for Algorithm 5; 1 for Algorithm 1 and V2.
    samples_per_epoch : tuple of int
        Samples of each epoch ``1 … epochs``.
    capped : bool
        Stopped by ``max_samples`` before the algorithm returned.
    last : ndarray
        ``M_t`` of the final round (equal to ``output`` unless capped).
    algorithm, variant : str
        ``"pac"`` (variant ``"pac"``) or ``"exact"`` (``"V0"``, ``"V1"``, ``"V2"``).
    delta, epsilon : float
        Confidence; accuracy (None for Algorithm 5).
    sampler, radius_count, self_duel : str
        Options used.
    bad : ndarray or None
        ``M_bad`` of the biased sampler.
    max_samples : int or None
        The cap.
    trace : ndarray or None
        With ``record=True``: one row ``(z_t, e′, 2X)`` per sample.
    """

    output: np.ndarray | None
    samples: int
    real_duels: int
    self_duels: int
    epochs: int
    samples_per_epoch: tuple[int, ...]
    capped: bool
    last: np.ndarray
    algorithm: str
    variant: str
    delta: float
    epsilon: float | None
    sampler: str
    radius_count: str
    self_duel: str
    bad: np.ndarray | None
    max_samples: int | None
    trace: np.ndarray | None = None


# --- matchings, sampler and the reduction -----------------------------------------------------

def _table(inst: BipartiteInstance) -> np.ndarray:
    return np.ascontiguousarray(enumerate_matchings(inst, limit=MAX_ENUMERATED), dtype=np.int64)


def borda_worst(inst: BipartiteInstance, table: np.ndarray | None = None) -> np.ndarray:
    """The matching of least Borda score ``B(M) = w(M)/ℓ`` (Eq. 4), lowest row on ties."""
    table = _table(inst) if table is None else table
    w = borda_weights(inst)
    return table[int(np.argmin(w[table].sum(axis=1)))].copy()


def _row_of(table: np.ndarray, matching) -> int:
    mm = np.asarray(matching, dtype=np.int64)
    if mm.shape != (table.shape[1],):
        raise ValueError(f"M_bad must be a matching of {table.shape[1]} edge indices in position order, got {mm!r}")
    hit = np.flatnonzero(np.all(table == mm[None, :], axis=1))
    if len(hit) == 0:
        raise ValueError(f"M_bad {mm.tolist()} is not a maximum matching of the instance")
    return int(hit[0])


def _check_sampler(sampler: str) -> None:
    if sampler not in SAMPLERS:
        raise ValueError(f"unknown sampler {sampler!r}; choose one of {SAMPLERS}")


def _check_eta(eta: float) -> float:
    eta = float(eta)
    if not 0.0 <= eta <= 1.0:
        raise ValueError(f"bias parameter η must lie in [0, 1], got {eta}")
    return eta


def sampler_probabilities(inst: BipartiteInstance, sampler: str = "exact", eta: float = 0.0, bad=None,
                          table: np.ndarray | None = None) -> np.ndarray:
    """Law ``π′`` of ``𝒮(η)`` (Definition 1, L109–L117) over the rows of the enumerated ``ℳ``.

    ``"exact"``: uniform (``η`` ignored).  ``"biased"``: ``(1 − η)/|ℳ|`` on every row plus ``η``
    on ``M_bad`` (default :func:`borda_worst`).
    """
    _check_sampler(sampler)
    table = _table(inst) if table is None else table
    n = table.shape[0]
    p = np.full(n, 1.0 / n)
    if sampler == "biased":
        eta = _check_eta(eta)
        row = _row_of(table, borda_worst(inst, table) if bad is None else bad)
        p = np.full(n, (1.0 - eta) / n)
        p[row] += eta
    return p


def tv_distance(p, q) -> float:
    """``d_tv(p, q) = ½ Σ_x |p(x) − q(x)|`` (Definition 1, L113)."""
    return 0.5 * float(np.abs(np.asarray(p, dtype=np.float64) - np.asarray(q, dtype=np.float64)).sum())


def expected_reduced_reward(inst: BipartiteInstance, sampler: str = "exact", eta: float = 0.0, bad=None,
                            self_duel: str = "coin") -> np.ndarray:
    """``E[X(e)] = Σ_M π′(M)·p(e, e(M, s(e)))`` for every edge (L644); ``w(e)`` (Eq. 4) for the
    exact sampler.  A self-duel contributes ``p(e, e) = 1/2`` under either ``self_duel``."""
    if self_duel not in SELF_DUELS:
        raise ValueError(f"unknown self_duel {self_duel!r}; choose one of {SELF_DUELS}")
    table = _table(inst)
    p = sampler_probabilities(inst, sampler, eta, bad, table)
    opp = table[:, inst.position]  # opp[r, e] = e(M_r, s(e))
    return matvec(inst.P[np.arange(inst.m)[:, None], opp.T], p)


def reduced_samples(inst: BipartiteInstance, e: int, n: int, rng: np.random.Generator, sampler: str = "exact",
                    eta: float = 0.0, bad=None, self_duel: str = "coin") -> np.ndarray:
    """``n`` samples ``X`` of the reduced arm ``e`` (Section 3.1, L105–L107): draw ``M′`` from
    ``𝒮(η)``, duel ``(e, e(M′, s(e)))``; the stream of the algorithms' rounds (D7): two uniforms
    per sample, ``u₁`` for ``M′`` and ``u₂`` for the duel."""
    _check_sampler(sampler)
    if self_duel not in SELF_DUELS:
        raise ValueError(f"unknown self_duel {self_duel!r}; choose one of {SELF_DUELS}")
    if not 0 <= e < inst.m:
        raise ValueError(f"edge {e} outside 0 … {inst.m - 1}")
    table = _table(inst)
    N = table.shape[0]
    u = rng.random((int(n), 2))
    if sampler == "biased":
        eta = _check_eta(eta)
        bad_row = _row_of(table, borda_worst(inst, table) if bad is None else bad)
        v = (u[:, 0] - eta) / (1.0 - eta) if eta < 1 else np.zeros(len(u))
        rows = np.minimum((v * N).astype(np.int64), N - 1)
        rows = np.where(u[:, 0] < eta, bad_row, rows)
    else:
        rows = np.minimum((u[:, 0] * N).astype(np.int64), N - 1)
    opp = table[rows, inst.position[e]]
    x = (u[:, 1] < inst.P[e, opp]).astype(np.float64)
    if self_duel == "half":
        x[opp == e] = 0.5
    return x


def enumerated_mwmc(inst: BipartiteInstance, w, table: np.ndarray | None = None) -> np.ndarray:
    """``MWMC(w)`` as the algorithms call it (D4, D9): the lexicographically first row of the
    enumerated ``ℳ`` whose weight is within :data:`TIE_TOL` of the maximum."""
    table = _table(inst) if table is None else table
    w = np.ascontiguousarray(w, dtype=np.float64)
    if w.shape != (inst.m,):
        raise ValueError(f"need one weight per edge ({inst.m}), got shape {w.shape}")
    return table[_k.oracle(table, w, np.zeros(table.shape[0]))].copy()


# --- the algorithms ------------------------------------------------------------------------

def _rng(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    return np.random.default_rng(np.random.SeedSequence(seed))


def _common(inst, delta, sampler, bad, radius_count, self_duel, max_samples):
    if not isinstance(inst, BipartiteInstance):
        raise TypeError(f"need a BipartiteInstance, got {type(inst).__name__}")
    if inst.K == 0:
        raise ValueError(f"instance {inst.name!r} has K = 0 duel pairs: the radius ln(4Kt³/δ) (L133) is undefined")
    delta = float(delta)
    if not 0.0 < delta < 1.0:
        raise ValueError(f"confidence δ must lie in (0, 1), got {delta}")
    _check_sampler(sampler)
    if radius_count not in RADIUS_COUNTS:
        raise ValueError(f"unknown radius_count {radius_count!r}; choose one of {RADIUS_COUNTS}")
    if self_duel not in SELF_DUELS:
        raise ValueError(f"unknown self_duel {self_duel!r}; choose one of {SELF_DUELS}")
    if max_samples is not None:
        if isinstance(max_samples, bool) or int(max_samples) != max_samples or max_samples < 0:
            raise ValueError(f"max_samples must be None or an integer ≥ 0, got {max_samples!r}")
        max_samples = int(max_samples)
    table = _table(inst)
    if sampler == "biased":
        bad = borda_worst(inst, table) if bad is None else np.asarray(bad, dtype=np.int64)
        bad_row = _row_of(table, bad)
    else:
        if bad is not None:
            raise ValueError("M_bad is an option of the biased sampler only")
        bad_row = 0
    n_radius = float(inst.K if radius_count == "K" else inst.m)
    return delta, table, bad, bad_row, n_radius, max_samples


def _run(inst, table, n_radius, delta, epsilon, mode, sampler, bad_row, self_duel, max_samples, seed, record):
    out = _k.run(table, np.ascontiguousarray(inst.position, dtype=np.int64), np.ascontiguousarray(inst.P),
                 n_radius, delta, epsilon, mode, sampler == "biased", bad_row, self_duel == "half",
                 -1 if max_samples is None else max_samples, _rng(seed), record)
    status, out_row, last_row, samples, real, selfd, q, per_epoch, trace = out
    capped = status == _k.STATUS_CAPPED
    return dict(output=None if capped else table[out_row].copy(), last=table[last_row].copy(), samples=int(samples),
                real_duels=int(real), self_duels=int(selfd), epochs=int(q),
                samples_per_epoch=tuple(int(x) for x in per_epoch), capped=bool(capped),
                trace=trace if record else None)


def clucb_borda_pac(inst: BipartiteInstance, delta: float, epsilon: float, *, seed=0, sampler: str = "exact",
                    bad=None, radius_count: str = "K", self_duel: str = "coin", max_samples: int | None = None,
                    record: bool = False) -> BordaResult:
    """Algorithm 1, CLUCB-Borda-PAC (L127–L150): an ``ε``-optimal Borda matching
    (``B(Out) ≥ B(M*) − ε``) with probability ``≥ 1 − δ`` (Theorem 1).

    Parameters
    ----------
    inst : BipartiteInstance
        The instance (``K ≥ 1``).
    delta : float
        Confidence ``δ ∈ (0, 1)``.
    epsilon : float
        Accuracy ``ε > 0`` (in Borda score; the stopping test L142 is ``≤ ℓ·ε`` in weight).
    seed : int, SeedSequence or Generator
        Randomness (D7).
    sampler : {"exact", "biased"}
        ``𝒮(η)`` with ``η = ε/8`` (L129; D8).
    bad : matching, optional
        ``M_bad`` of the biased sampler (default the Borda-worst matching).
    radius_count : {"K", "m"}
        D1.
    self_duel : {"coin", "half"}
        D2.
    max_samples : int, optional
        D6.
    record : bool
        Keep the per-sample trace.

    Returns
    -------
    BordaResult
    """
    delta, table, bad, bad_row, n_radius, max_samples = _common(inst, delta, sampler, bad, radius_count, self_duel,
                                                                max_samples)
    epsilon = float(epsilon)
    if not (np.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"accuracy ε must be > 0, got {epsilon}")
    if sampler == "biased" and epsilon / 8 > 1:
        raise ValueError(f"the biased sampler needs η = ε/8 ≤ 1, got ε = {epsilon}")
    res = _run(inst, table, n_radius, delta, epsilon, _k.MODE_PAC, sampler, bad_row, self_duel, max_samples, seed,
               record)
    return BordaResult(**res, algorithm="pac", variant="pac", delta=delta, epsilon=epsilon, sampler=sampler,
                       radius_count=radius_count, self_duel=self_duel, bad=bad, max_samples=max_samples)


def clucb_borda_exact(inst: BipartiteInstance, delta: float, *, variant: str = "V0", seed=0, sampler: str = "exact",
                      bad=None, radius_count: str = "K", self_duel: str = "coin", max_samples: int | None = None,
                      record: bool = False) -> BordaResult:
    """Algorithm 5, CLUCB-Borda-Exact (L745–L775): the Borda winner with probability ``≥ 1 − δ``
    (Theorem 2), in the variants ``"V0"`` (as printed), ``"V1"`` (radius break) and ``"V2"``
    (exact sampler, no epochs) of the module docstring.

    Parameters are those of :func:`clucb_borda_pac` without ``epsilon`` (the biased sampler
    uses ``η_q = ε_q/8`` in epoch ``q``, L750), plus ``variant``.

    Returns
    -------
    BordaResult
    """
    if variant not in EXACT_VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; choose one of {EXACT_VARIANTS}")
    delta, table, bad, bad_row, n_radius, max_samples = _common(inst, delta, sampler, bad, radius_count, self_duel,
                                                                max_samples)
    if variant == "V2" and sampler != "exact":
        raise ValueError("variant V2 drops the bias terms and needs the exact sampler")
    mode = {"V0": _k.MODE_V0, "V1": _k.MODE_V1, "V2": _k.MODE_V2}[variant]
    res = _run(inst, table, n_radius, delta, 0.0, mode, sampler, bad_row, self_duel, max_samples, seed, record)
    return BordaResult(**res, algorithm="exact", variant=variant, delta=delta, epsilon=None, sampler=sampler,
                       radius_count=radius_count, self_duel=self_duel, bad=bad, max_samples=max_samples)
