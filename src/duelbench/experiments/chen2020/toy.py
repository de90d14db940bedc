"""X0: the toy instance of Figures 1-7, the width example of Figures 8-10 and every instance's
ground truth (Chen et al. 2020, L46-L87, L561-L599).

``toy.csv`` (columns ``statistic, value, evidence, prediction, agrees``), one row per statistic:

``toy:unique_assignment``
    Figures 1-4 keep the edges' labels but not their endpoints.  Figure 2 (L48-L53) puts
    ``e1, e2, e3`` at ``s1`` and ``e4, e5`` at ``s2`` (comparable edges have non-zero entries);
    the paper's edge order (L64: position, then candidate) leaves ``C(4,3)·C(4,2) = 24`` ways to
    give them candidates.  True iff exactly one of them gives the Borda winner the score 0.64
    (L83) and the Condorcet winner the score 0.615 (L87), and that one is
    :func:`duelbench.cpe.families.toy` (the enumeration is redone here from the printed matrix).
``toy:assignments_with_printed_scores``
    How many of the 24 do.
``toy:e1e5_maximum_matching``
    ``{e1, e5}`` is a maximum matching of the recovered graph (Figure 5).
``toy:gprime_multiplicity`` / ``toy:gprime_multiplicity_is_factorial``
    Every maximum matching of ``G`` is the image of the same number of perfect matchings of
    ``G′`` (Appendix B.2, L572-L574, Figures 6-7): that number (−1 if they differ), and whether
    it is ``(n − ℓ)! = 2`` (the paper prints "one-to-n").
``toy:winners_differ``, ``toy:borda_winner``, ``toy:condorcet_winner``, ``toy:borda_scores``
    The two winners of L83-L87 and every ``B(M)`` (Eq. 2).
``width_example:width``
    ``width(G)`` of the reconstruction of Figures 8-10 by enumeration (4, L599).
``errata:h_eps_limit_over_h_b`` / ``errata:h_eps_limit_over_width2_h_b``
    ``H^B_ε`` of the toy at an ``ε`` below ``Δ^B_min/width(G)`` (where every term of L186 is
    ``width²/Δ²``) over ``H^B`` (L188 prints that they coincide) and over ``width(G)²·H^B``.
``errata:l229_unnormalised_max_score`` / ``errata:l229_normalised_max_score``
    The largest ``χ_Mᵀ P χ_{M^C_*}`` over ``M ≠ M^C_*`` on the toy (L229 prints it below 1/2) and
    the same with the ``1/ℓ`` of Eq. (1).
``errata:lemma7_gradient_over_k_k21``
    On ``K_{2,1}`` (``K = 1``, ``m = 2``) with ``Q = 1`` on every comparable pair, the largest
    ``‖(1/ℓ) Q χ_y‖₂`` (a sub-gradient of ``f``, L316) over the matchings ``y`` divided by ``K``:
    Lemma 7 (L1127) prints that ``f`` is ``K``-Lipschitz; ``√m/ℓ`` bounds the gradient instead.
informational rows
    ``toy:matchings`` (``|ℳ|``), ``toy:q_star``, ``toy:H_B``, ``toy:delta_min``, ``toy:H_ver``,
    ``toy:condorcet_min_f``.

``instances.csv``: the ground truth of every named instance and of every draw of the
``hardness.exact`` study (recipes of :mod:`.cells`, instances of :func:`.runs.instance`).

Decisions
---------
* T1 - score matching.  A printed score is matched when the computed one is within
  :data:`SCORE_TOL` ``= 5e-4`` of it (the paper prints two or three decimals); the computed
  toy scores are 0.64 and 0.615 up to rounding.
* T2 - Condorcet winner of an assignment.  Strict (L87) by enumeration
  (:func:`duelbench.cpe.hardness.condorcet_winner`); an assignment without one does not match.
* T3 - empty cells.  F2 (planted Condorcet) instances need no unique Borda winner, so their Borda
  columns are empty; ``H_ver`` is computed only when a strict Condorcet winner exists.  The width
  is a property of the graph and is given for every instance.
* T4 - hardness draws.  The recipes of the ``hardness.exact`` draws are taken from
  :func:`.cells.cells` itself (with placeholder Borda options, which do not enter a recipe), so
  this table and the study cannot name different instances.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np

from duelbench.cpe import families, hardness
from duelbench.cpe.instance import BipartiteInstance
from duelbench.cpe.matching import enumerate_matchings, g_prime, MatchingCounter, to_g
from duelbench.report.numerics import fdot

from ..contract import StepContext
from ..plotting import save_figure
from ..tables import write_rows
from .cells import cells, instance_spec
from .runs import truths
from .studies import edge_label, outside_term, truth_value

#: Figure 2 (L48-L53) as printed: ``FIGURE2[i, j] = p(e_{i+1}, e_{j+1})``.
FIGURE2 = np.array([[0.5, 0.45, 1.0, 0.0, 0.0],
                    [0.55, 0.5, 0.55, 0.0, 0.0],
                    [0.0, 0.45, 0.5, 0.0, 0.0],
                    [0.0, 0.0, 0.0, 0.5, 0.0],
                    [0.0, 0.0, 0.0, 1.0, 0.5]])
#: The printed Borda scores of the Borda winner (L83) and of the Condorcet winner (L87).
PRINTED_BORDA, PRINTED_CONDORCET = 0.64, 0.615
#: Tolerance of a printed score (decision T1).
SCORE_TOL = 5e-4
#: Positions of e1 … e5 read from Figure 2's comparable blocks (0-based).
TOY_POSITIONS = (0, 0, 0, 1, 1)

TOY_COLUMNS = ["statistic", "value", "evidence", "prediction", "agrees"]
INSTANCE_COLUMNS = ["name", "family", "n", "ell", "m", "K", "matchings", "borda_winner", "delta_min", "H_B", "width",
                    "q_star", "condorcet_winner", "H_ver", "condorcet_outside_term", "prediction", "agrees"]


# --------------------------------------------------------------------------------------------
# the toy: enumeration of the endpoints
# --------------------------------------------------------------------------------------------
def toy_assignments(n: int = 4):
    """Every instance with Figure 2's matrix whose edges follow the paper's order (L64):
    ``e1 < e2 < e3`` candidates at ``s1``, ``e4 < e5`` at ``s2``; yields edge tuples."""
    for s1 in itertools.combinations(range(n), 3):
        for s2 in itertools.combinations(range(n), 2):
            yield tuple((c, 0) for c in s1) + tuple((c, 1) for c in s2)


def score_assignment(edges) -> dict:
    """Borda scores (Eq. 2), Borda winner and strict Condorcet winner of one assignment."""
    inst = BipartiteInstance(n=4, ell=2, edges=edges, P=FIGURE2, name="toy-candidate")
    ms = enumerate_matchings(inst)
    scores = truth_value(hardness.borda_scores(inst, ms))
    best = int(np.argmax(scores))
    cw = hardness.condorcet_winner(inst, ms)
    cw_score = math.nan
    if cw is not None:
        row = int(np.flatnonzero((ms == cw[None, :]).all(axis=1))[0])
        cw_score = float(scores[row])
    matches = (abs(float(scores[best]) - PRINTED_BORDA) <= SCORE_TOL and cw is not None
               and abs(cw_score - PRINTED_CONDORCET) <= SCORE_TOL)
    return {"edges": tuple(edges), "instance": inst, "matchings": ms, "scores": scores, "borda": ms[best],
            "borda_score": float(scores[best]), "condorcet": cw, "condorcet_score": cw_score, "matches": matches}


def _fmt_edges(edges) -> str:
    return ", ".join(f"e{i + 1} = (c{c + 1}, s{s + 1})" for i, (c, s) in enumerate(edges))


def gprime_multiplicities(inst) -> dict:
    """For every maximum matching of ``inst`` (as a tuple of edge indices), the number of perfect
    matchings of ``G′`` (Appendix B.2, L572-L574) that map to it."""
    gp = g_prime(inst)
    counts = {tuple(int(e) for e in M): 0 for M in enumerate_matchings(inst)}
    for perfect in enumerate_matchings(gp):
        key = tuple(int(e) for e in to_g(inst, gp, perfect))
        counts[key] = counts.get(key, 0) + 1
    return counts


def toy_rows() -> list[dict]:
    """The rows of ``toy.csv``."""
    results = [score_assignment(e) for e in toy_assignments()]
    hits = [r for r in results if r["matches"]]
    ref = families.toy()
    same = (len(hits) == 1 and hits[0]["edges"] == tuple(ref.edges) and np.array_equal(ref.P, FIGURE2))
    rows = []

    def add(stat, value, evidence, prediction="", agrees=None):
        rows.append({"statistic": stat, "value": value, "evidence": evidence, "prediction": prediction,
                     "agrees": agrees})

    found = "; ".join(_fmt_edges(r["edges"]) for r in hits) or "none"
    add("toy:unique_assignment", len(hits) == 1 and same,
        f"{len(results)} assignments in the order of L64; matching both printed scores within {SCORE_TOL:g}: {found}; "
        f"equal to duelbench.cpe.families.toy() (edges and Figure 2's matrix): {same}",
        "exactly one endpoint assignment gives B = 0.64 to the Borda winner (L83) and 0.615 to the Condorcet "
        "winner (L87)", len(hits) == 1 and same)
    add("toy:assignments_with_printed_scores", len(hits),
        f"of {len(results)}; the Borda-winner scores closest to 0.64: "
        + ", ".join(repr(v) for v in sorted({round(r["borda_score"], 6) for r in results},
                                             key=lambda v: (abs(v - PRINTED_BORDA), v))[:6]))
    top = hits[0] if hits else score_assignment(tuple(ref.edges))
    inst, ms, scores = top["instance"], top["matchings"], top["scores"]
    e1e5 = any(sorted(M.tolist()) == [0, 4] for M in ms)
    add("toy:e1e5_maximum_matching", e1e5,
        "maximum matchings of the recovered graph: " + "; ".join("{" + edge_label(M) + "}" for M in ms),
        "{e1, e5} is a maximum matching (Figure 5)", e1e5)
    counts = gprime_multiplicities(inst)
    values = sorted(set(counts.values()))
    mult = values[0] if len(values) == 1 else -1
    fact = math.factorial(inst.n - inst.ell)
    add("toy:gprime_multiplicity", mult,
        "perfect matchings of G' per maximum matching of G: "
        + "; ".join(f"{{{edge_label(k)}}}: {v}" for k, v in counts.items()),
        f"the same number of perfect matchings of G' per maximum matching (L574), (n - l)! = {fact}", mult == fact)
    add("toy:gprime_multiplicity_is_factorial", mult == fact,
        f"(n - l)! = ({inst.n} - {inst.ell})! = {fact}; the paper prints 'one-to-n' (L572)",
        "each maximum matching has (n - l)! copies in G'", mult == fact)
    cw = top["condorcet"]
    differ = cw is not None and sorted(cw.tolist()) != sorted(top["borda"].tolist())
    add("toy:winners_differ", differ,
        f"Borda winner {{{edge_label(top['borda'])}}} (B = {top['borda_score']!r}), Condorcet winner "
        f"{{{edge_label(cw)}}} (B = {top['condorcet_score']!r})",
        "the Condorcet winner differs from the Borda winner (L87)", differ)
    add("toy:borda_winner", edge_label(top["borda"]), f"B = {top['borda_score']!r} (printed 0.64, L83)")
    add("toy:condorcet_winner", edge_label(cw), f"B = {top['condorcet_score']!r} (printed 0.615, L87)")
    add("toy:borda_scores", "; ".join(f"{edge_label(M)}: {float(b)!r}" for M, b in zip(ms, scores)),
        "B(M) of Eq. (2) for every maximum matching, by enumeration")
    wex = families.width_example()
    w = hardness.width(wex, closed_form=False)
    M1, M2 = [0, 2, 5], [1, 3, 5]
    wms = [sorted(M.tolist()) for M in enumerate_matchings(wex)]
    add("width_example:width", w,
        f"{len(wms)} maximum matchings; M1 = {{e1, e3, e6}} and M2 = {{e2, e4, e6}} are among them: "
        f"{M1 in wms and M2 in wms}; largest union component over all pairs, by enumeration",
        "width(G) = 4 (L599)", w == 4)
    truth = hardness.borda_truth(inst)
    ct = hardness.condorcet_truth(inst)
    add("toy:matchings", int(truth.n_matchings), "|M|, exact count")
    add("toy:q_star", int(truth.q_star), "floor(log2(l/Delta_min)) + 1 (L800)")
    add("toy:H_B", truth_value(truth.hardness), "H^B = sum_e 1/(Delta^B_e)^2 (Definition 4, L170-L174)")
    add("toy:delta_min", truth_value(truth.delta_min), "min_e Delta^B_e (Definition 3, L162-L168)")
    add("toy:H_ver", truth_value(ct.h_ver), "H^C_ver (L362-L370)")
    f = truth_value(ct.f_winner)
    others = f[~(ct.matchings == ct.winner[None, :]).all(axis=1)]
    add("toy:condorcet_min_f", float(others.min()), "min over M != M^C_* of f(M^C_*, M, P) (> 1/2, L87)")
    rows += errata_rows(inst, truth, ct)
    return rows


def errata_rows(inst, truth, ct) -> list[dict]:
    """The rows ``errata:*`` of ``toy.csv`` (see the module docstring): exact facts that show
    errata E20 (L188), E3 (L229) and E11 (L1127) of the registry."""
    rows = []

    def add(stat, value, evidence, prediction="", agrees=None):
        rows.append({"statistic": stat, "value": value, "evidence": evidence, "prediction": prediction,
                     "agrees": agrees})

    w, hb, dmin = truth.width, truth_value(truth.hardness), truth_value(truth.delta_min)
    eps = dmin / (2.0 * max(w, 1))
    h = truth_value(hardness.h_eps(truth, eps))
    add("errata:h_eps_limit_over_h_b", h / hb,
        f"toy: H_eps at eps = {eps!r} (below Delta_min/width = {dmin / max(w, 1)!r}) = {h!r}; H^B = {hb!r}; "
        f"width(G) = {w}", "L188: H_eps coincides with H^B when eps is small enough (ratio 1)", bool(abs(h / hb - 1) < 1e-9))
    add("errata:h_eps_limit_over_width2_h_b", h / (w * w * hb),
        f"toy: H_eps = {h!r} = width^2 x H^B = {w}^2 x {hb!r} (every term of L186 is width^2/Delta^2 there)",
        "H_eps tends to width(G)^2 H^B (ratio 1)", bool(abs(h / (w * w * hb) - 1) < 1e-9))
    is_winner = (ct.matchings == ct.winner[None, :]).all(axis=1)
    f_to = truth_value(hardness.matchings_f(inst, ct.matchings, ct.winner[None, :])[:, 0])  # (1/l) chi^T P chi
    unnorm = float((inst.ell * f_to)[~is_winner].max())
    norm = float(f_to[~is_winner].max())
    add("errata:l229_unnormalised_max_score", unnorm,
        f"toy: largest chi_M^T P chi_(M^C_*) over the {int((~is_winner).sum())} matchings M != M^C_* (l = {inst.ell})",
        "L229 as printed: chi_M^T P chi_(M^C_*) < 1/2 for every M != M^C_*", bool(unnorm < 0.5))
    add("errata:l229_normalised_max_score", norm, "toy: the same with the 1/l of Eq. (1), i.e. max f(M, M^C_*, P)",
        "(1/l) chi_M^T P chi_(M^C_*) < 1/2 for every M != M^C_* (the Condorcet winner wins, L87)", bool(norm < 0.5))
    k21 = BipartiteInstance(n=2, ell=1, edges=((0, 0), (1, 0)), P=np.full((2, 2), 0.5), name="K2,1")
    Q = np.where(k21.comparable_mask, 1.0, 0.0)
    grads = [Q[:, y].sum(axis=1) / k21.ell for y in enumerate_matchings(k21)]
    norms = [math.sqrt(fdot(g, g)) for g in grads]
    add("errata:lemma7_gradient_over_k_k21", max(norms) / k21.K,
        f"K2,1 (m = {k21.m}, K = {k21.K}, l = {k21.ell}), Q = 1 on comparable pairs: sub-gradients (1/l) Q chi_y of "
        f"norms {', '.join(repr(v) for v in norms)}; sqrt(m)/l = {float(np.sqrt(k21.m)) / k21.ell!r}",
        "Lemma 7 (L1127): f is K-Lipschitz (ratio <= 1)", bool(max(norms) / k21.K <= 1.0))
    return rows


# --------------------------------------------------------------------------------------------
# instances
# --------------------------------------------------------------------------------------------
def instance_specs(s: Mapping) -> list[dict]:
    """The recipes of every named instance and of every draw of ``hardness.exact`` (decision T4)."""
    specs = [instance_spec(s, name) for name in s["instances"]]
    h = s.get("hardness")
    if h and "exact" in h:
        probe = {"instances": s["instances"], "instance_seed": s["instance_seed"], "seed": 0,
                 "borda": {"radius_count": "K", "self_duel": "coin", "max_samples": 1},
                 "hardness": {"pac": {**h["pac"], "instances": []}, "exact": h["exact"]}}
        specs += [c.job["instance"] for c in cells(probe) if c.study == "hardness" and c.job["algorithm"] == "exact"]
    return specs


def instance_row(spec: Mapping) -> dict:
    """Ground truth of one instance recipe (decision T3)."""
    inst, truth, winner = truths(spec)
    borda = truth is not None
    ct = hardness.condorcet_truth(inst) if winner is not None else None
    family = spec["family"]
    if family == "planted_condorcet":
        pred, ok = "a strict Condorcet winner (L87)", winner is not None
    else:
        pred, ok = "a unique Borda winner (L83) and a strict Condorcet winner (L87)", borda and winner is not None
    return {"name": spec["name"], "family": family, "n": inst.n, "ell": inst.ell, "m": inst.m, "K": inst.K,
            "matchings": MatchingCounter(inst).total,
            "borda_winner": edge_label(truth.winner) if borda else None,
            "delta_min": truth_value(truth.delta_min) if borda else None,
            "H_B": truth_value(truth.hardness) if borda else None,
            "width": truth.width if borda else hardness.width(inst),
            "q_star": truth.q_star if borda else None,
            "condorcet_winner": edge_label(winner) if winner is not None else None,
            "H_ver": truth_value(ct.h_ver) if ct is not None else None,
            "condorcet_outside_term": outside_term(ct) if ct is not None else None,
            "prediction": pred, "agrees": ok}


# --------------------------------------------------------------------------------------------
# the figure
# --------------------------------------------------------------------------------------------
def _draw_graph(ax, inst, styles: Mapping[int, tuple], title: str) -> None:
    """Candidates left, positions right, edges labelled ``e1 … em``; ``styles[e] = (colour, ls,
    width)`` (default grey)."""
    yc = -np.arange(inst.n, dtype=float)
    ys = (np.array([-(inst.n - 1) / 2.0]) if inst.ell == 1
          else np.linspace(-(inst.n - 1) * 0.15, -(inst.n - 1) * 0.85, inst.ell))
    for e, (c, s) in enumerate(inst.edges):
        colour, ls, lw = styles.get(e, ("#9a9a9a", "-", 1.2))
        ax.plot([0, 1], [yc[c], ys[s]], color=colour, ls=ls, lw=lw, zorder=1)
        block = list(inst.position_edges[s])
        k, deg = block.index(e), len(block)
        t = 0.3 + 0.4 * (k / (deg - 1) if deg > 1 else 0.5)
        ax.text(t, yc[c] + t * (ys[s] - yc[c]), f"e{e + 1}", fontsize=8, ha="center", va="center", color=colour,
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5}, zorder=3)
    ax.scatter(np.zeros(inst.n), yc, s=260, color="#dce9f5", edgecolor="#0072B2", zorder=2)
    ax.scatter(np.ones(inst.ell), ys, s=260, color="#fbe3d6", edgecolor="#D55E00", zorder=2)
    for i, y in enumerate(yc):
        ax.text(0, y, f"c{i + 1}", ha="center", va="center", fontsize=8, zorder=4)
    for j, y in enumerate(ys):
        ax.text(1, y, f"s{j + 1}", ha="center", va="center", fontsize=8, zorder=4)
    ax.text(0, 0.75, "candidates", ha="center", fontsize=8, color="#0072B2")
    ax.text(1, 0.75, "positions", ha="center", fontsize=8, color="#D55E00")
    ax.set_xlim(-0.3, 1.3)
    ax.set_ylim(-inst.n + 0.4, 1.1)
    ax.set_title(title, fontsize=9.5)
    ax.axis("off")


def draw_toy(rows, s: Mapping):
    """(a) the Borda winner, (b) the Condorcet winner, (c) Figure 2's matrix, (d) Figures 8-10."""
    stat = {r["statistic"]: r for r in rows}
    inst = families.toy()
    red = ("#D00000", "-", 3.0)

    def matching_of(label):
        return [int(x[1:]) - 1 for x in str(label).split()]

    b, c = stat["toy:borda_winner"]["value"], stat["toy:condorcet_winner"]["value"]
    scores = dict(part.split(": ") for part in stat["toy:borda_scores"]["value"].split("; "))
    fig, axes = plt.subplots(1, 4, figsize=(16.0, 4.4), gridspec_kw={"width_ratios": [1, 1, 1.25, 1.15]})
    _draw_graph(axes[0], inst, {e: red for e in matching_of(b)},
                f"(a) Borda winner {{{b.replace(' ', ', ')}}}, B = {float(scores[b]):.4g}\n(Figure 3, L83)")
    _draw_graph(axes[1], inst, {e: red for e in matching_of(c)},
                f"(b) Condorcet winner {{{c.replace(' ', ', ')}}}, B = {float(scores[c]):.4g}\n(Figure 4, L87)")
    ax = axes[2]
    labels = [f"e{i + 1}" for i in range(FIGURE2.shape[0])]
    table = ax.table(cellText=[[f"{v:g}" for v in row] for row in FIGURE2], rowLabels=labels, colLabels=labels,
                     loc="center", cellLoc="center")
    table.scale(1.0, 1.6)
    ax.set_title("(c) Figure 2: p(row beats column), as printed", fontsize=9.5)
    ax.axis("off")
    wex = families.width_example()
    styles = {0: ("#0072B2", "-", 2.6), 2: ("#0072B2", "-", 2.6), 1: ("#E69F00", "--", 2.6),
              3: ("#E69F00", "--", 2.6), 5: ("#CC79A7", "-", 2.6)}
    _draw_graph(axes[3], wex, styles,
                f"(d) Figures 8-10 (reconstruction): M1 blue, M2 orange,\ncommon e6; width(G) = "
                f"{stat['width_example:width']['value']} (L599)")
    fig.suptitle("Figures 1-10 of Chen et al. 2020: the recovered toy instance (the one endpoint assignment of 24 with "
                 f"the printed scores) and the width example [fidelity {s.get('fidelity')}]", fontsize=10.5)
    fig.tight_layout()
    return fig


def write_toy(ctx: StepContext) -> dict:
    """Step ``toy``: ``toy.csv``, ``instances.csv`` and the figure."""
    s = ctx.settings
    rows = toy_rows()
    write_rows(ctx.output.csv, TOY_COLUMNS, rows, empty_nan=True)
    inst_rows = [instance_row(spec) for spec in instance_specs(s)]
    write_rows(ctx.output.instances, INSTANCE_COLUMNS, inst_rows, empty_nan=True)
    save_figure(draw_toy(rows, s), [ctx.output.pdf, ctx.output.png])
    for r in rows:
        print(f"{r['statistic']}: {r['value']}", flush=True)
    print(f"{len(inst_rows)} instances -> {ctx.output.instances}", flush=True)
    return {"instances": len(inst_rows)}
