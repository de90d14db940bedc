"""Appendix C of Zoghi et al. (2015): the tables of Figure 4, Table 1, Figure 5 and Figure 6.

From the per-sample columns of :mod:`.appendix_c` (one sample family per click model, read with
:func:`duelbench.experiments.samples.load_family`):

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

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from duelbench.provenance.sidecar import atomic_write_text
from duelbench.report.checks import load_registry
from duelbench.report.numerics import fmean, fsem, fsum

from ..aggregate import write_table
from ..contract import Plan, StepContext
from ..samples import load_family
from .appendix_c import N_ARMS, WORDS, AppendixCError, delta_ratio, set_columns
from .config import MAIN_CLICK_MODEL, POOLINGS
from .timing import cost_table

#: Table 1's four notions (rows and columns of ``table1_overlap.csv``).
TABLE1_NOTIONS = ("copeland", "von_neumann", "borda", "random_walk")


# --------------------------------------------------------------------------------------------
# the samples of one click model
# --------------------------------------------------------------------------------------------
@dataclass
class Records:
    """All samples of one click model in the K-major order (the columns of :mod:`.appendix_c`)."""
    click_model: str
    arrays: dict
    mode: str = "full"
    #: notion -> its winner sets as words (:meth:`notion`, built once)
    words: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def full(self) -> bool:
        """Whether every per-sample quantity was computed (else only ``has_cw``)."""
        return self.mode == "full"

    @property
    def k(self) -> np.ndarray:
        return self.arrays["k"].astype(np.int64)

    def notion(self, name: str) -> np.ndarray:
        """Winner sets of notion ``name`` (an :data:`.appendix_c.NOTIONS` entry) as words, shape (n, WORDS)."""
        if name not in self.words:
            self.words[name] = np.stack([self.arrays[c] for c in set_columns(f"winners_{name}")], axis=1)
        return self.words[name]

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
        words = self.notion(name)[row]
        return tuple(64 * j + b for j in range(WORDS) for b in range(64) if (int(words[j]) >> b) & 1)


def load_records(plan: Plan) -> dict[str, Records]:
    """The samples of every click model of the plan (its sample families, one per model); each
    family must hold exactly the samples of its job's K-major enumeration, else
    :class:`AppendixCError`."""
    out = {}
    for model in plan.settings["appendix_c"]["click_models"]:
        shards = plan.sample_family(model)
        job = shards[0].job
        arrays = load_family(shards)
        ks, n = job["k_values"], int(job["samples_per_k"])
        if not (np.array_equal(arrays["k"], np.repeat(ks, n)) and np.array_equal(arrays["index"], np.tile(np.arange(n), len(ks)))):
            raise AppendixCError(f"{model}: the shards hold {arrays['k'].size} samples, not the {len(ks) * n} "
                                 f"of the K-major enumeration ({len(ks)} values of K x {n})")
        out[model] = Records(click_model=model, arrays=arrays, mode=job["mode"])
    return out


# --------------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------------
def per_k_proportion(k: np.ndarray, flag: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(K values, proportion of ``flag`` per K, samples per K)."""
    k = np.asarray(k)
    if k.size and np.all(k[1:] >= k[:-1]):  # K-major samples: each K is one run, no sort needed
        starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
        ks, inv = k[starts], np.repeat(np.arange(starts.size), np.diff(np.r_[starts, k.size]))
    else:
        ks, inv = np.unique(k, return_inverse=True)
    n = np.bincount(inv, minlength=ks.size)
    hits = np.bincount(inv, weights=np.asarray(flag, dtype=float), minlength=ks.size)
    return ks, hits / n, n


def pooled_percentage(k: np.ndarray, flag: np.ndarray, k_min: int = 1) -> tuple[float, float]:
    """Equal-weight pooling over K >= ``k_min`` (Z6): (100 x mean_K p_K, its binomial s.e. x 100)."""
    keep = np.asarray(k) >= k_min
    _, p, n = per_k_proportion(np.asarray(k)[keep], np.asarray(flag)[keep])
    mean = fmean(p)
    se = math.sqrt(fsum(p * (1 - p) / n)) / p.size
    return 100.0 * mean, 100.0 * se


def condorcet_table(records: Mapping[str, Records]) -> "object":
    """Figure 4: columns ``K, p_condorcet, n_samples, stderr, click_model`` (one block per model)."""
    frames = []
    for model, rec in records.items():
        ks, p, n = per_k_proportion(rec.k, rec.arrays["has_cw"])
        frames.append(pd.DataFrame({"K": ks, "p_condorcet": p, "n_samples": n,
                                    "stderr": np.sqrt(p * (1 - p) / n), "click_model": model}))
    return pd.concat(frames, ignore_index=True)


def table1_variants(main_rw: str, main_vn: str) -> dict[str, tuple[str, str, str]]:
    """Table-1 variants: name -> (random-walk chain, von Neumann support method, label): the main
    reading and its labelled variants (other chains; the other support method)."""
    out = {"main": (main_rw, main_vn, f"main reading: RW-{main_rw}, von Neumann {main_vn} support")}
    for ch in ("A", "B", "C"):
        if ch != main_rw:
            out[f"rw_{ch.lower()}"] = (ch, main_vn, f"variant: random walk RW-{ch}")
    other = "solution" if main_vn == "union" else "union"
    out[f"vn_{other}"] = (main_rw, other, f"variant: von Neumann {other} support")
    return out


def table1_long(rec: Records, main_rw: str = "C", main_vn: str = "union", k_min: int = 1) -> "object":
    """Every Table-1 cell of the main reading and of each variant, pooled over K >= ``k_min`` (Z6).

    Columns: ``variant, row, column, percent, se, calibrated, label``. ``row = column`` cells are
    100 (a set meets itself). Extra rows ``copeland_in_vn_support`` (column ``von_neumann``).
    ``calibrated`` is true for cells that involve the random walk (reading Z6).
    """
    rows = []
    k = rec.k
    for variant, (rw, vn, label) in table1_variants(main_rw, main_vn).items():
        m = {"copeland": "copeland", "borda": "borda", "von_neumann": f"vn_{vn}", "random_walk": f"rw_{rw.lower()}"}
        for a in TABLE1_NOTIONS:
            for b in TABLE1_NOTIONS:
                if a == b:
                    pct, se = 100.0, 0.0
                else:
                    pct, se = pooled_percentage(k, rec.overlap(m[a], m[b]), k_min)
                rows.append({"variant": variant, "row": a, "column": b, "percent": pct, "se": se,
                             "calibrated": "random_walk" in (a, b) and a != b, "label": label})
        pct, se = pooled_percentage(k, rec.contained("copeland", m["von_neumann"]), k_min)
        rows.append({"variant": variant, "row": "copeland_in_vn_support", "column": "von_neumann", "percent": pct,
                     "se": se, "calibrated": False, "label": label})
    return pd.DataFrame(rows)


def table1_matrix(long, variant: str = "main", value: str = "percent") -> "object":
    """The 4 x 4 table (+ ``copeland_in_vn_support`` line, value in column ``copeland``)."""
    sub = long[long["variant"] == variant]
    data = {c: [] for c in TABLE1_NOTIONS}
    index = list(TABLE1_NOTIONS) + ["copeland_in_vn_support"]
    for r in TABLE1_NOTIONS:
        for c in TABLE1_NOTIONS:
            data[c].append(float(sub[(sub["row"] == r) & (sub["column"] == c)][value].iloc[0]))
    data["copeland"].append(float(sub[sub["row"] == "copeland_in_vn_support"][value].iloc[0]))
    for c in TABLE1_NOTIONS[1:]:
        data[c].append(np.nan)
    return pd.DataFrame(data, index=pd.Index(index, name="notion"))


def c_lc_distribution(records: Mapping[str, Records]) -> "object":
    """Figure 5: columns ``click_model, K, quantity (C | L_C), value, count, percent``."""
    frames = []
    for model, rec in records.items():
        if not rec.full:
            continue
        k = rec.k
        for q in ("C", "L_C"):
            v = rec.arrays[q].astype(np.int64)
            if min(int(k.min()), int(v.min())) < 0:
                raise AppendixCError(f"{model}: negative K or {q} in the samples")
            # the (K, value) pairs in lexicographic order with their counts: one bincount of K*M + value
            m = int(v.max()) + 1
            c = np.bincount(k * m + v)
            keys = np.flatnonzero(c)
            pairs, counts = np.stack([keys // m, keys % m], axis=1), c[keys]
            nk = np.bincount(k)
            frames.append(pd.DataFrame({
                "click_model": model, "K": pairs[:, 0], "quantity": q, "value": pairs[:, 1], "count": counts,
                "percent": 100.0 * counts / nk[pairs[:, 0]],
            }))
    return pd.concat(frames, ignore_index=True)


def delta_ratio_table(rec: Records) -> "object":
    """Figure 6: ``K, mean_ratio, median_ratio, stderr, n_defined, n_samples`` for every K >= 2.

    Samples with C = K are excluded (Delta undefined, Z7); K with no defined sample give NaN.
    """
    k = rec.k
    r = rec.ratio()
    rows = []
    for K in np.unique(k):
        if K < 2:
            continue
        x = r[(k == K) & np.isfinite(r)]
        n_all = int(np.count_nonzero(k == K))
        rows.append({"K": int(K), "mean_ratio": fmean(x),
                     "median_ratio": float(np.median(x)) if x.size else np.nan,
                     "stderr": fsem(x),
                     "n_defined": int(x.size), "n_samples": n_all})
    return pd.DataFrame(rows, columns=["K", "mean_ratio", "median_ratio", "stderr", "n_defined", "n_samples"])


def published_values(path: str) -> dict[str, float]:
    """statistic -> published number, from the registry at ``path`` (only compared against, never used)."""
    reg = load_registry(path)
    return {c["statistic"]: c["published"] for c in reg["checks"] if c.get("published") is not None}


def _fmt_pct(x: float, se: float | None = None) -> str:
    if se is None or not np.isfinite(se) or se == 0:
        return f"{x:.2f}"
    return f"{x:.2f} ± {se:.2f}"


def table1_markdown(long, s: Mapping, published: Mapping[str, float], n_per_k: int, ks: Sequence[int]) -> str:
    """``table1_overlap.md``: the main table with the published value beside each cell, then the
    labelled variants."""
    names = {"copeland": "Copeland", "von_neumann": "von Neumann", "borda": "Borda", "random_walk": "Random Walk"}
    a = s["appendix_c"]
    full_k = list(ks) == list(range(1, N_ARMS + 1))
    k_min = POOLINGS[a["pooling"]]
    krange = (f"K = {k_min}..136" if full_k else
              f"K in {{{', '.join(str(k) for k in ks if k >= k_min)}}} only (not the declared 1..136)")
    header = "| Overlap | " + " | ".join(names[c] for c in TABLE1_NOTIONS) + " |"
    rule = "|---|" + "---|" * len(TABLE1_NOTIONS)
    lines = [
        "# Table 1 (Zoghi et al. 2015, Appendix C.2): overlap of winner notions",
        "",
        f"Percentage of sampled submatrices of the informational MSLR matrix whose winner sets intersect, "
        f"pooled with equal weight over {krange}, {n_per_k} samples per K (fidelity `{s['fidelity']}`). "
        "Each cell: reproduced ± 1 s.e. [published]. Cells marked *calibrated* involve the random-walk "
        f"winner (chain RW-{a['random_walk_main']}), whose chain was chosen with knowledge of this table "
        "(reading Z6): they are reported, not claimed as replicated.",
        "",
    ]

    def pub(r, c):
        for key in (f"table1:{r}:{c}", f"table1:{c}:{r}"):
            if key in published:
                return published[key]
        return None

    def block(variant, with_published):
        sub = long[long["variant"] == variant]
        label = sub["label"].iloc[0]
        out = [f"## {label[0].upper() + label[1:]}", "", header, rule]
        for r in TABLE1_NOTIONS:
            cells = []
            for c in TABLE1_NOTIONS:
                row = sub[(sub["row"] == r) & (sub["column"] == c)].iloc[0]
                txt = _fmt_pct(row["percent"], row["se"])
                p = pub(r, c) if (with_published and r != c) else None
                if p is not None:
                    txt += f" [{p}]"
                if bool(row["calibrated"]):
                    txt += " *calibrated*"
                cells.append(txt)
            out.append(f"| {names[r]} | " + " | ".join(cells) + " |")
        row = sub[sub["row"] == "copeland_in_vn_support"].iloc[0]
        p = published.get("table1:copeland_in_vn_support") if with_published else None
        out += ["", f"All Copeland winners in the von Neumann support: {_fmt_pct(row['percent'], row['se'])}%"
                + (f" [published {p}%]" if p is not None else ""), ""]
        return out

    lines += block("main", True)
    lines += ["## Published (Table 1, L437-L440, from data/published/zoghi2015.yaml)", "", header, rule]
    for r in TABLE1_NOTIONS:
        cells = ["100" if r == c else (str(pub(r, c)) if pub(r, c) is not None else "") for c in TABLE1_NOTIONS]
        lines.append(f"| {names[r]} | " + " | ".join(cells) + " |")
    p = published.get("table1:copeland_in_vn_support")
    lines += ["", f"All Copeland winners in the von Neumann support: {p}%" if p is not None else "", ""]
    for variant in long["variant"].unique():
        if variant != "main":
            lines += block(variant, False)
    return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------------------------
# the step
# --------------------------------------------------------------------------------------------
def write_tables(ctx: StepContext) -> dict:
    """Figure 4, Table 1, Figure 5, Figure 6 tables and the per-sample cost (host dependent) from
    the sample families."""
    s, out = ctx.settings, ctx.output
    a = s["appendix_c"]
    records = load_records(ctx.plan)
    main = records.get(MAIN_CLICK_MODEL)
    if main is None or not main.full:
        raise AppendixCError(f"Table 1 and Figures 5-6 need every per-sample quantity of {MAIN_CLICK_MODEL}: "
                             "list it in zoghi2015.appendix_c.click_models and winner_statistics")
    write_table(condorcet_table(records), out.condorcet_csv,
                columns=["K", "p_condorcet", "n_samples", "stderr", "click_model"])
    long = table1_long(main, a["random_walk_main"], a["von_neumann_support"], POOLINGS[a["pooling"]])
    write_table(long, out.table1_long_csv)
    table1_matrix(long, "main", "percent").to_csv(out.table1_csv, float_format="%.6g", lineterminator="\n")
    table1_matrix(long, "main", "se").to_csv(out.table1_se_csv, float_format="%.6g", lineterminator="\n")
    atomic_write_text(out.table1_md, table1_markdown(long, s, published_values(ctx.input.registry),
                                                     int(a["samples_per_k"]), a["k_values_resolved"]))
    write_table(c_lc_distribution(records), out.c_lc_csv)
    write_table(delta_ratio_table(main), out.delta_ratio_csv)
    write_table(cost_table(ctx.plan.samples), out.appendix_c_cost_csv)
    print(f"{len(ctx.input.samples)} sample shards, {sum(r.k.size for r in records.values())} samples")
    return {"appendix_c_seed": int(a["seed"])}
