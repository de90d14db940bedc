"""One row per claim for a person to read: the paper's words, what was measured, the verdict, why.

Built from a paper's ``checks.csv`` (and its ``readings.csv``, if the paper runs reading
variants), never from the registry alone, so that every number shown is one the build wrote.
Numbers have 3 significant digits (:func:`duelbench.report.verdict.sig`); the CSVs keep 12.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .verdict import sig

#: Columns of the claim tables of REPORT.md.
COLUMNS = ("claim", "the paper says", "measured [95 % interval]", "claim holds if", "verdict", "why")
KIND_ORDER = ("published", "theory", "erratum", "shown")
#: What the estimate of each sample estimator is, in the measured column.
ESTIMATOR_WORDS = {"mean_ratio": "mean A / mean B", "paired_mean_ratio": "mean A / mean B, paired runs",
                   "mean_difference": "mean A − mean B", "paired_mean_difference": "mean A − mean B, paired runs",
                   "proportion": "share of runs", "bootstrap": "bootstrap over runs"}
KIND_TITLES = {"published": "Published claims", "theory": "The suite's tests of the theory",
               "erratum": "Checks of the errata", "shown": "Numbers shown without a claim"}


def _num(text, digits: int = 3) -> str:
    if text in (None, ""):
        return ""
    if text in ("True", "False"):
        return text.lower()
    try:
        return sig(float(text), digits)
    except ValueError:
        return str(text)


def digits(row: Mapping) -> int:
    """3 significant digits, 4 where the claim's region is an interval (a printed number, a band):
    its width can be below what 3 digits resolve."""
    region = row.get("region", "")
    return 4 if region.startswith(("printed", "in (", "= ")) else 3


def measured(row: Mapping) -> str:
    """``1.21 [1.06, 1.39]``; the point alone when exact; ``not computed`` without an estimate."""
    d = digits(row)
    est = _num(row.get("estimate"), d)
    if not est:
        return "not computed"
    lo, hi = row.get("ci_low", ""), row.get("ci_high", "")
    if lo in ("", None) or lo == hi:
        return est
    what = ESTIMATOR_WORDS.get(row.get("estimator", ""), "")
    return f"{est} [{_num(lo, d)}, {_num(hi, d)}]" + (f" ({what})" if what else "")


def verdict(row: Mapping) -> str:
    """The adjusted verdict, with the raw one where Holm's adjustment changed it."""
    raw, adj = row["outcome"], row.get("outcome_adjusted") or row["outcome"]
    return adj if raw == adj else f"{adj} (alone: {raw})"


def why(row: Mapping, flips: Sequence[str] = (), family: int | None = None) -> str:
    """One sentence on what decided the verdict (and the readings under which it differs)."""
    raw, adj = row["outcome"], row.get("outcome_adjusted") or row["outcome"]
    region = row.get("region", "")
    lo, hi = _num(row.get("ci_low")), _num(row.get("ci_high"))
    exact = lo == hi or not lo
    if raw == "shown":
        text = "shown beside the paper's figure; no claim is judged"
    elif not row.get("estimate"):
        text = f"not computed: {row.get('evidence', '')[:140]}"
    elif raw == "pass":
        text = f"the value lies in the claim's region ({region})" if exact else \
            f"the whole interval lies in the claim's region ({region})"
    elif raw == "fail":
        text = f"the value lies outside the claim's region ({region})" if exact else \
            f"the whole interval lies outside the claim's region ({region})"
    else:
        need = row.get("runs_to_decide", "")
        text = f"the interval crosses a boundary of the claim's region ({region})"
        if need:
            text += f"; about {sig(float(need))} runs per curve would decide it (80 % power)"
    if raw != adj:
        text += (f"; not decided after Holm's adjustment over the paper's {family} published checks"
                 if family else "; not decided after Holm's adjustment over the paper's published checks")
    if row.get("robust"):
        text += f"; heavy tails: {row['robust']}"
    if flips:
        text += "; " + "; ".join(flips)
    return text


def reading_flips(readings: Sequence[Mapping]) -> dict[str, list[str]]:
    """claim id -> ``"pass under reading X"`` for every reading variant whose outcome differs."""
    out: dict[str, list[str]] = {}
    for r in readings:
        if r.get("flip"):
            out.setdefault(r["claim_id"], []).append(f"{r['variant_outcome']} under reading `{r['reading']}`")
    return out


def rows(checks: Sequence[Mapping], readings: Sequence[Mapping] = (), kind: str | None = None) -> list[dict]:
    """The claim-table rows of ``checks`` (of one ``kind`` if given)."""
    flips = reading_flips(readings)
    family = sum(c["kind"] == "published" and c.get("p_pass_adjusted", "") != "" for c in checks)
    out = []
    for c in checks:
        if kind and c["kind"] != kind:
            continue
        says = c.get("quote") or c.get("description", "")
        if c.get("lines"):
            says = f"“{says}” ({c['lines']})" if c.get("quote") else f"{says} ({c['lines']})"
        out.append({"claim": f"`{c['claim_id']}`", "the paper says": says, "measured [95 % interval]": measured(c),
                    "claim holds if": c.get("region", ""), "verdict": verdict(c),
                    "why": why(c, flips.get(c["claim_id"], ()), family)})
    return out


def kind_counts(checks: Sequence[Mapping]) -> dict[str, dict[str, int]]:
    """kind -> {pass, fail, inconclusive, shown} counts of the adjusted verdicts."""
    out = {k: {"pass": 0, "fail": 0, "inconclusive": 0, "shown": 0} for k in KIND_ORDER}
    for c in checks:
        out.setdefault(c["kind"], {"pass": 0, "fail": 0, "inconclusive": 0, "shown": 0})
        out[c["kind"]][c.get("outcome_adjusted") or c["outcome"]] += 1
    return out
