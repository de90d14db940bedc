"""Data facts and the theory's statements for Agarwal et al. (2022): ``theory.csv``.

One row per statistic (columns ``statistic``, ``value``, ``se``, ``evidence``; ``se`` is the
Monte-Carlo standard error of a Monte-Carlo value, empty for an exact one), read by :mod:`.checks`:

``facts:condorcet_winner_all``
    Every panel's matrix, and every instance runs 0 … runs−1 of a family panel, has a
    Condorcet winner (@32323).
``facts:syn_btl_sst_sti``
    Every SYN-BTL matrix used satisfies SST and STI (@32375;
    :mod:`duelbench.problems.transitivity`, strength order of the matrix).
``facts:syn_cd_structure``
    Every SYN-CD matrix used is the Hard-Instance of @32013: one winner l, P_l,i = 1/2 + Delta,
    Delta in (0, 1/2), every other pair 1/2.
``facts:real_sst_sti_violations``
    Violating triples (SST plus STI) of the Six-rankers and Sushi matrices.
``seed_rank:lemma45:<ratio>:K<K>``, ``seed_rank:lemma46:<ratio>:K<K>``
    Monte Carlo (:func:`duelbench.bounds.batched.seed_rank_moments`) of the rank of the best
    seed arm for p = K^(-1/2) and K^(-2/3), one row per K of ``seed_rank.K``: the ratio of the
    first (``mean_over_bound``) and second (``second_over_bound``) moment to the lemma's bound,
    with its Monte-Carlo standard error in column ``se`` (Lemma 4.6's second moment to the
    corrected 2 K^(4/3), erratum E4, and to the printed K^(4/3): ``second_over_printed_bound``);
    the exact moments (:func:`duelbench.bounds.batched.exact_seed_rank_moments`) in the evidence.
``lower_bound:sst_sti``, ``lower_bound:eps_min``
    Every instance E_jk, Q_jkl of Theorem C.1 at ``lower_bound`` (K, B, T) satisfies SST and
    STI / has eps_min(E_jk) = Delta_j.
``thm31_bound:<p>:<B>``
    Theorem 3.1's bound for the panel, averaged over the runs' instances, per B of
    ``theory.batches``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from duelbench.bounds.batched import delta_j, lower_bound_instance, pcomp_bound, seed_rank_moments
from duelbench.data import registry
from duelbench.engine.families import run_matrix
from duelbench.problems.transitivity import (
    epsilon_min,
    gaps_to_best,
    satisfies_sst,
    satisfies_sti,
    transitivity_report,
)
from duelbench.problems.winners import condorcet_winner
from duelbench.report.numerics import fmean

from ..aggregate import write_table
from ..contract import StepContext

COLUMNS = ["statistic", "value", "se", "evidence"]


def _matrices(s, panel: str) -> list:
    """The matrices panel ``panel`` runs on: one per run for a family, else the dataset once."""
    dataset = s["panels"][panel]
    runs = range(int(s["runs"])) if registry.is_family(dataset) else range(1)
    return [run_matrix(dataset, r) for r in runs]


def data_facts(s) -> list[dict]:
    rows = []
    mats = {p: _matrices(s, p) for p in s["panels"]}
    missing = [f"{p}:{m.name}" for p, ms in mats.items() for m in ms if condorcet_winner(m.values) is None]
    rows.append({"statistic": "facts:condorcet_winner_all", "value": not missing,
                 "evidence": f"{sum(len(m) for m in mats.values())} matrices; without a Condorcet winner: "
                             f"{', '.join(missing[:5]) or 'none'}"})
    bad = [m.name for m in mats["syn_btl"] if not (satisfies_sst(m) and satisfies_sti(m))]
    rows.append({"statistic": "facts:syn_btl_sst_sti", "value": not bad,
                 "evidence": f"{len(mats['syn_btl'])} SYN-BTL matrices; violating: {', '.join(bad[:5]) or 'none'}"})
    bad = [m.name for m in mats["syn_cd"] if not _is_hard_instance(m.values)]
    rows.append({"statistic": "facts:syn_cd_structure", "value": not bad,
                 "evidence": f"{len(mats['syn_cd'])} SYN-CD matrices; not of the form: {', '.join(bad[:5]) or 'none'}"})
    total, ev = 0, []
    for p in ("six_rankers", "sushi"):
        r = transitivity_report(mats[p][0])
        total += r.sst_count + r.sti_count
        ev.append(f"{p}: {r.sst_count} SST and {r.sti_count} STI violations of {r.n_triples} ordered triples")
    rows.append({"statistic": "facts:real_sst_sti_violations", "value": total, "evidence": "; ".join(ev)})
    return rows


def _is_hard_instance(P: np.ndarray) -> bool:
    """SYN-CD's form (@32013-@32313): one row l at 1/2 + Delta off the diagonal, Delta in (0, 1/2),
    all other entries 1/2 (or 1/2 - Delta in column l)."""
    K = P.shape[0]
    off = ~np.eye(K, dtype=bool)
    winners = [i for i in range(K) if np.all(P[i][off[i]] > 0.5)]
    if len(winners) != 1:
        return False
    w = winners[0]
    delta = P[w, (w + 1) % K] - 0.5
    rest = np.delete(np.delete(P, w, 0), w, 1)
    return (0 < delta < 0.5 and np.allclose(P[w][off[w]], 0.5 + delta, rtol=0, atol=1e-15)
            and np.allclose(rest, 0.5, rtol=0, atol=0))


def seed_rank(s) -> list[dict]:
    cfg = s["seed_rank"]
    rows = []
    for lemma, exponent in (("lemma45", 0.5), ("lemma46", 2.0 / 3.0)):
        for K in cfg["K"]:
            rng = np.random.default_rng(np.random.SeedSequence([int(cfg["seed"]), int(K), int(exponent * 3)]))
            m = seed_rank_moments(int(K), float(K) ** -exponent, rng, int(cfg["samples"]))
            printed = m.bound_second
            true_bound = 2.0 * float(K) ** (2 * exponent) if lemma == "lemma46" else m.bound_second
            ev = (f"K={K}, {m.n} non-empty seed sets: E[rank] {m.mean:.4g} ± {m.mean_se:.2g} (exact {m.exact_mean:.4g}, "
                  f"bound {m.bound_mean:.4g}), E[rank^2] {m.second:.4g} ± {m.second_se:.2g} (exact "
                  f"{m.exact_second:.4g}, bound {true_bound:.4g}, printed {printed:.4g})")
            ratios = {"mean_over_bound": (m.mean, m.mean_se, m.bound_mean),
                      "second_over_bound": (m.second, m.second_se, true_bound)}
            if lemma == "lemma46":
                ratios["second_over_printed_bound"] = (m.second, m.second_se, printed)
            for stat, (value, se, bound) in ratios.items():
                rows.append({"statistic": f"seed_rank:{lemma}:{stat}:K{int(K)}", "value": value / bound,
                             "se": se / bound, "evidence": ev})
    return rows


def lower_bound(s) -> list[dict]:
    K, B, T = (int(s["lower_bound"][k]) for k in ("K", "B", "T"))
    bad, gap_bad, n = [], [], 0
    for j in range(1, B + 1):
        for k in range(K):
            for l in [None, *range(K)]:
                if l == k:
                    continue
                P = lower_bound_instance(K, B, T, j, k, l)
                n += 1
                if not (satisfies_sst(P) and satisfies_sti(P)):
                    bad.append(f"j={j},k={k},l={l}")
                if l is None and not math.isclose(epsilon_min(P, best=k), delta_j(K, B, T, j), rel_tol=1e-12):
                    gap_bad.append(f"j={j},k={k}")
    where = f"K = {K}, B = {B}, T = {T}: {n} instances"
    return [{"statistic": "lower_bound:sst_sti", "value": not bad,
             "evidence": f"{where}; violating: {', '.join(bad[:5]) or 'none'}"},
            {"statistic": "lower_bound:eps_min", "value": not gap_bad,
             "evidence": f"{where}; eps_min != Delta_j: {', '.join(gap_bad[:5]) or 'none'}"}]


def thm31_bounds(s) -> list[dict]:
    T = int(s["horizon"])
    rows = []
    for p in s["panels"]:
        mats = _matrices(s, p)
        for B in s["theory"]["batches"]:
            values = [pcomp_bound(m.K, int(B), T, np.clip(gaps_to_best(m), 0, None)) for m in mats]
            rows.append({"statistic": f"thm31_bound:{p}:{int(B)}", "value": fmean(values),
                         "evidence": f"mean over {len(values)} matrices"})
    return rows


def theory(ctx: StepContext) -> None:
    """Step ``theory``: ``theory.csv``."""
    s = ctx.settings
    rows = data_facts(s) + seed_rank(s) + lower_bound(s) + thm31_bounds(s)
    for r in rows:
        print(f"{r['statistic']}: {r['value']} ({r['evidence'][:100]})", flush=True)
    write_table(pd.DataFrame(rows, columns=COLUMNS), ctx.output.csv, COLUMNS)
