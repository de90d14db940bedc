"""Regret-bound constants of CCB (Zoghi, Karnin, Whiteson & de Rijke 2015, Theorem 11).

Paper texts: ``shared/papers/001_46dfb6e9ef9a8784.txt`` ("paper 001", the arXiv version of the
CCB paper; its Theorem 11 is "Theorem 3" of the NIPS version cited by Komiyama et al.) and
``shared/papers/000_f9a3afa5eda552a1.txt`` ("paper 000", Komiyama, Honda & Nakagawa 2016).
``001:Lnnn`` / ``000:Lnnn`` are line numbers in those files.  Arm indices are 0-based in code.

What is computed
----------------
Theorem 11 (001:L228-L232) bounds the regret of CCB, with probability ``1 - delta``, by

    A^(1)_delta + A^(2)_delta sqrt(ln T) + A^(3) ln T
        <= A^(1)_delta + A^(2)_delta sqrt(ln T) + 2 K (C + L_C + 1) / Delta^2 * ln T,

and only the coefficient of ``ln T`` is a "bound constant" comparable with the lower bound of
paper 000 (which multiplies ``log T``, natural log; 000:L113).  The quantities (Definition 3,
001:L149-L183; Tables 2-3, 001:L1005-L1057):

* ``Cpld(a_i) = #{j : p_ij > 1/2}``; the Copeland winners maximise it, ``C`` of them (001:L44).
* ``L_i = {j : p_ij < 1/2}`` (the arms ``a_i`` loses to); ``L_C`` = the number of losses of the
  Copeland winner ``a_1`` (001:L155), taken as the largest number of losses over the Copeland
  winners (Table 2, 001:L1030; identical when there are no ties).  ``L_C`` is paper 000's ``L_1``.
* ``Delta_ij = |p_ij - 1/2|`` (001:L159).
* For a non-winner ``i``: ``Delta*_i`` = the ``(L_C + 1)``-th largest element of ``{Delta_ij :
  p_ij < 1/2}`` (001:L163, L167); ``Delta*_min = min_{i > C} Delta*_i`` (001:L167).
* ``Delta = min{ min_{i <= C < j} Delta_ij , Delta*_min }`` (Definition 3.6, 001:L175).
* ``A^(3) = sum_{i <= C < j} 1/Delta_ij^2 + 2 sum_{i > C} (L_C + 1)/(Delta*_i)^2`` (001:L226).

Variants (all returned by :func:`ccb_constants`; name -> formula -> source)
-------------------------------------------------------------------------
Units.  Paper 001 measures regret per comparison as ``2 cpld(a_1) - cpld(a_i) - cpld(a_j)``
(Definition 1, 001:L46-L48, range [0, 2]); paper 000 uses ``r_ij = (L_i + L_j - 2 L_1) / (2 (K -
1))`` (000:L71, range [0, 1]), which is exactly half of it when there are no ties; 000:L73
(footnote 1) says the results compare "simply by multiplying a constant".  Every variant without
a suffix is in paper 001's unit (the bound as printed); the suffix ``_halved`` divides by 2 to
express it in paper 000's regret unit.

Factor 4 alpha.  ``N^_ij = 4 alpha ln t / (Delta*_ij)^2`` (001:L183) but ``A^(3)`` (001:L226) and
Remark 9 (001:L220) drop the ``4 alpha``, although Lemma 8 bounds the draws through sums of
``N^_ij`` (001:L216).  The suffix ``_4alpha`` restores it with ``alpha`` = CCB's parameter
(default 0.51, the value used in paper 000's experiments, 000:L305).

``ccb_a3``                 ``A^(3)`` literally (001:L226): the left-hand coefficient of Theorem 11.
``ccb_rhs_def36``          ``2 K (C + L_C + 1) / Delta^2`` with ``Delta`` of Definition 3.6
                           (001:L175): the right-hand coefficient of Theorem 11 (001:L232).
                           **Main variant** (:data:`CCB_MAIN_VARIANT`), see below.
``ccb_rhs_cwncw``          same with ``Delta = min_{i <= C < j} Delta_ij`` only, i.e. the gap over
                           Copeland-winner / non-winner pairs without the ``Delta*_min`` term
                           (a reading of the "original" Delta of paper 000's footnote 2,
                           000:L263; larger than or equal to Def. 3.6's).
``ccb_rhs_globalmin``      same with ``Delta = min_{i != j} |p_ij - 1/2|``: the global minimum gap
                           of 001:L159 (``Delta_min``) and of paper 000's eq. (10) (000:L255),
                           ties included (a tie gives ``Delta = 0`` and an infinite constant).
``ccb_rhs_globalmin_nz``   same with the minimum over non-zero gaps (Table 2, 001:L1035); equals
                           ``ccb_rhs_globalmin`` unless the matrix has a tie.
``ccb_eq10``               ``K (C + L_1 + 1) / Delta_min^2``: the expression inside the ``O(.)``
                           of paper 000's eq. (10) (000:L257) with its ``Delta`` (000:L255) and
                           its ``C``, ``L_1`` (fewest strict losses, 000:L69), no
                           constant factor and no unit (it is an order of growth).
each with ``_4alpha`` and/or ``_halved`` twins (``ccb_eq10`` has neither).

The main variant (decision)
---------------------------
Paper 000 quotes the CCB bound as its eq. (10), ``O(K (C + L_1 + 1) / Delta^2 log T)`` with the
global minimum gap (000:L255-L257), and footnote 2 (000:L263) says: "Here, we use a Delta that is
a little bit looser than the one in the original bound ... In Table 1, we used the value of the
original regret bound of CCB."  The original bound of that form is the right-hand side of
Theorem 11, ``2 K (C + L_C + 1) / Delta^2`` with Definition 3.6's Delta, and "the value of the
original bound" is taken without rescaling, i.e. in paper 001's regret unit.  Hence
``CCB_MAIN_VARIANT = "ccb_rhs_def36"``.  Neither paper says whether Table 1 rescaled the unit or
restored ``4 alpha``; those readings are the ``_halved`` and ``_4alpha`` columns.

Calibration against paper 000 Table 1 (000:L56-L59, CCB mean 8.8e5 over 10^4 random 16-arm MSLR
submatrices): on 10^4 uniform 16-subsets of the informational matrix with the gap filter
``|p_ij - 1/2| >= 0.005`` (000:L295; ``random_submatrix(..., min_gap=0.005)``, seed 1) the
means were ``ccb_rhs_def36`` 6.7e5 (standard error 0.6e4), ``ccb_rhs_def36_4alpha_halved``
6.8e5, ``ccb_eq10`` 9.2e5, ``ccb_rhs_globalmin`` 1.8e6, ``ccb_a3`` 5.3e4; the lower bound's mean
was 6.6e2 (paper: 6.7e2).  No variant reproduces 8.8e5 exactly; the main variant was chosen
from the texts above, not from this comparison.

Edge cases (decisions)
----------------------
* Every arm a Copeland winner (``C = K``, e.g. a 3-cycle): there are no non-winners, the minima
  over empty sets are ``+inf`` and the sums are empty, so ``A^(3) = 0`` and ``Delta = inf`` gives
  the coefficient 0 for the Definition-3.6 and winner/non-winner variants (the regret is then
  identically zero).  The global-minimum variants stay finite.
* Ties (``p_ij = 1/2``): Assumption A (001:L139-L141) excludes them.  The formulas are applied
  literally: a tie between a winner and a non-winner gives ``Delta_ij = 0`` and ``+inf``; a
  non-winner with fewer than ``L_C + 1`` strict losses (possible only with ties) has no
  ``Delta*_i`` and gets ``Delta*_i = 0`` (``+inf``).  On the ArXiv matrix (tie between the
  non-winners 4 and 6) only the ``globalmin`` variants are infinite.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from duelbench.problems.matrix import PreferenceMatrix, square_values

__all__ = [
    "CCBQuantities",
    "ccb_quantities",
    "ccb_a3",
    "ccb_rhs",
    "ccb_eq10",
    "ccb_constants",
    "ccb_variant_names",
    "CCB_MAIN_VARIANT",
    "CCB_DELTAS",
    "DEFAULT_ALPHA",
    "bound_constants_row",
]

#: The variant reported as "the CCB bound" (paper 000 Table 1 reading; see the module docstring).
CCB_MAIN_VARIANT = "ccb_rhs_def36"
#: Delta definitions accepted by :func:`ccb_rhs`.
CCB_DELTAS = ("def36", "cwncw", "globalmin", "globalmin_nz")
#: CCB's alpha in paper 000's experiments (000:L305), used by the ``_4alpha`` variants.
DEFAULT_ALPHA = 0.51


@dataclass(frozen=True)
class CCBQuantities:
    """Definition-3 quantities of paper 001 (L149-L183) for one matrix (0-based indices).

    ``winners``, ``C`` and ``L_C`` follow paper 001 (most wins, 001:L44; Table 2, 001:L1030);
    ``C_000`` and ``L_1`` follow paper 000 (fewest strict losses, 000:L69) for eq. (10); the
    two agree unless the matrix has ties.
    ``delta_star`` holds ``Delta*_i`` for every arm (0 for Copeland winners, 001:L167);
    ``delta_def36``, ``delta_cwncw``, ``delta_globalmin`` and ``delta_globalmin_nz`` are the four
    Delta readings of the module docstring (``inf`` for a minimum over an empty set).
    """

    K: int
    winners: tuple
    C: int
    L_C: int
    C_000: int
    L_1: int
    gaps: np.ndarray
    delta_star: np.ndarray
    delta_star_min: float
    delta_def36: float
    delta_cwncw: float
    delta_globalmin: float
    delta_globalmin_nz: float


def _min(x) -> float:
    x = np.asarray(x, dtype=float)
    return float(x.min()) if x.size else float("inf")


def ccb_quantities(P) -> CCBQuantities:
    """Compute :class:`CCBQuantities` (paper 001 Definition 3, L149-L183)."""
    a = square_values(P)
    K = a.shape[0]
    score = np.count_nonzero(a > 0.5, axis=1)  # Cpld(a_i), 001:L44
    nlost = np.count_nonzero(a < 0.5, axis=1)  # |L_i|, 001:L155
    winners = tuple(int(i) for i in np.flatnonzero(score == score.max()))
    is_w = np.zeros(K, dtype=bool)
    is_w[list(winners)] = True
    L_C = int(nlost[is_w].max())  # Table 2, 001:L1030 (= |L_1| of L155 without ties)
    gaps = np.abs(a - 0.5)  # Delta_ij, 001:L159
    dstar = np.zeros(K)
    for i in np.flatnonzero(~is_w):
        lost = np.sort(gaps[i, a[i] < 0.5])[::-1]  # {Delta_ij : p_ij < 1/2}, largest first (001:L163)
        dstar[i] = lost[L_C] if lost.size > L_C else 0.0  # no (L_C+1)-th loss only with ties
    dstar_min = _min(dstar[~is_w])  # 001:L167
    cwncw = _min(gaps[np.ix_(is_w, ~is_w)])  # min_{i <= C < j} Delta_ij
    off = gaps[~np.eye(K, dtype=bool)]
    return CCBQuantities(
        K=K,
        winners=winners,
        C=len(winners),
        L_C=L_C,
        C_000=int(np.count_nonzero(nlost == nlost.min())),  # 000:L69
        L_1=int(nlost.min()),
        gaps=gaps,
        delta_star=dstar,
        delta_star_min=dstar_min,
        delta_def36=min(cwncw, dstar_min),  # 001:L175
        delta_cwncw=cwncw,
        delta_globalmin=_min(off),  # 001:L159, 000:L255
        delta_globalmin_nz=_min(off[off != 0]),  # 001:L1035
    )


def _inv_sq(x) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore"):
        return 1.0 / (x * x)


def ccb_a3(P, q: CCBQuantities | None = None) -> float:
    """``A^(3) = sum_{i<=C<j} 1/Delta_ij^2 + 2 sum_{i>C} (L_C+1)/(Delta*_i)^2`` (paper 001 L226), paper-001 unit."""
    q = ccb_quantities(P) if q is None else q
    is_w = np.zeros(q.K, dtype=bool)
    is_w[list(q.winners)] = True
    first = float(_inv_sq(q.gaps[np.ix_(is_w, ~is_w)]).sum())
    second = 2.0 * (q.L_C + 1) * float(_inv_sq(q.delta_star[~is_w]).sum())
    return first + second


def ccb_rhs(P, delta: str = "def36", q: CCBQuantities | None = None) -> float:
    """``2 K (C + L_C + 1) / Delta^2`` (paper 001 L232) with the chosen Delta (see :data:`CCB_DELTAS`), paper-001 unit."""
    if delta not in CCB_DELTAS:
        raise ValueError(f"delta must be one of {CCB_DELTAS}, got {delta!r}")
    q = ccb_quantities(P) if q is None else q
    D = getattr(q, "delta_" + delta)
    return float(2.0 * q.K * (q.C + q.L_C + 1) * _inv_sq(D))


def ccb_eq10(P, q: CCBQuantities | None = None) -> float:
    """``K (C + L_1 + 1) / Delta^2`` with the global minimum gap: inside the O(.) of paper 000 eq. (10), L255-L257."""
    q = ccb_quantities(P) if q is None else q
    return float(q.K * (q.C_000 + q.L_1 + 1) * _inv_sq(q.delta_globalmin))


def ccb_variant_names() -> tuple[str, ...]:
    """Names of all variants, in the column order of :func:`ccb_constants`."""
    bases = ["ccb_a3"] + [f"ccb_rhs_{d}" for d in CCB_DELTAS]
    names = []
    for b in bases:
        names += [b, b + "_halved", b + "_4alpha", b + "_4alpha_halved"]
    return tuple(names) + ("ccb_eq10",)


def ccb_constants(P, alpha: float = DEFAULT_ALPHA) -> dict[str, float]:
    """Every variant of the CCB ``ln T`` coefficient, as ``{name: value}`` (see the module docstring).

    ``alpha`` enters only the ``_4alpha`` variants (``4 alpha`` times the literal value).
    """
    if not alpha > 0.5:
        raise ValueError(f"Theorem 11 needs alpha > 0.5 (paper 001 L230), got {alpha!r}")
    q = ccb_quantities(P)
    base = {"ccb_a3": ccb_a3(P, q)}
    for d in CCB_DELTAS:
        base[f"ccb_rhs_{d}"] = ccb_rhs(P, d, q)
    out = {}
    for name, v in base.items():
        out[name] = v
        out[name + "_halved"] = v / 2.0
        out[name + "_4alpha"] = 4.0 * alpha * v
        out[name + "_4alpha_halved"] = 4.0 * alpha * v / 2.0
    out["ccb_eq10"] = ccb_eq10(P, q)
    assert tuple(out) == ccb_variant_names()
    return out


# --------------------------------------------------------------------------- table row
def bound_constants_row(P, name: str | None = None, *, alpha: float = DEFAULT_ALPHA) -> dict:
    """One row of ``figures/komiyama2016/bound_constants.csv`` for the preference matrix ``P``.

    Keys, in order:

    ``matrix``
        ``name`` if given, else ``P.name``, else ``P.identity`` (content hash) for an unnamed
        :class:`~duelbench.problems.matrix.PreferenceMatrix`, else ``""`` for a raw array.
    ``K``
        Number of arms.
    ``copeland_winners``
        The Copeland winners of paper 000 (fewest strict losses, 000:L69) as 0-based indices
        joined by ``";"`` (decision: arm names may contain spaces, indices cannot).
    ``lb``
        ``LB = min_{i1} C*_i1`` (Theorem 2, 000:L113), :func:`duelbench.bounds.lower_bound.lower_bound_constant`.
    ``ecwb``
        ``min_{i1} C^{E*}_i1`` (Theorem 4, 000:L218) from :func:`duelbench.bounds.ecw.ecw_constant`;
        NaN if that module is not installed.
    then every :func:`ccb_constants` variant (:func:`ccb_variant_names` order).

    All constants multiply ``ln T``.
    """
    from duelbench.bounds.lower_bound import lower_bound

    a = square_values(P)
    if name is None:
        name = (P.name or P.identity) if isinstance(P, PreferenceMatrix) else ""
    lb = lower_bound(P)
    try:
        from duelbench.bounds.ecw import ecw_constant
    except ImportError:  # the ECW module is optional here
        ecwb = float("nan")
    else:
        ecwb = float(ecw_constant(P))
    row = {
        "matrix": name,
        "K": int(a.shape[0]),
        "copeland_winners": ";".join(str(w) for w in lb.copeland_winners),
        "lb": lb.value,
        "ecwb": ecwb,
    }
    row.update(ccb_constants(P, alpha=alpha))
    return row
