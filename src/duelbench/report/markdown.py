"""``REPORT.md``: the replication report as Markdown, generated from a build (never hand-edited).

A summary table of every paper's status rows comes first, then per paper: one row per published
claim (the paper's words and line, the estimate with its 95 % interval, the claim's region, the
verdict and one sentence of why, :mod:`duelbench.report.claim_rows`); every table and figure of
the paper with its caption and status; the suite's tests of the theory, the checks of the errata
and the numbers shown without a claim, each in its own table; the errata the registry records.
Numbers have 3 significant digits; the CSVs keep 12.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from duelbench.config import figures_root
from duelbench.provenance.sidecar import atomic_write_text

from . import claim_rows, uncertainty
from .checks import read_csv_rows



def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(rows: Sequence[Mapping], columns: Sequence[str]) -> list[str]:
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join(_cell(r.get(c, "")) for c in columns) + " |" for r in rows]
    return out


def _demote(text: str) -> str:
    """A table's own Markdown, its headings demoted below the item's."""
    return "\n".join("###" + line if line.startswith("#") else line for line in text.strip().splitlines())


def _readings_of(checks_csv: str | None) -> list[dict]:
    """The paper's ``readings.csv`` beside its ``checks.csv`` (empty if it runs no variant)."""
    if not checks_csv:
        return []
    path = os.path.join(os.path.dirname(checks_csv), "readings.csv")
    return read_csv_rows(path) if os.path.isfile(path) else []


def kind_summary(checks: Sequence[Mapping]) -> str:
    """``published: 40 pass, 3 fail, 2 inconclusive · theory: …`` (adjusted verdicts)."""
    parts = []
    for kind, n in claim_rows.kind_counts(checks).items():
        if sum(n.values()):
            shown = [f"{v} {o}" for o, v in n.items() if v]
            parts.append(f"{kind}: {', '.join(shown)}")
    return " · ".join(parts)


def kind_row(paper: str, checks: Sequence[Mapping]) -> dict:
    """``{paper, published: "40 / 3 / 2", …, shown: "1"}`` for the summary table."""
    row = {"paper": paper}
    for kind, n in claim_rows.kind_counts(checks).items():
        row[kind] = str(n["shown"]) if kind == "shown" else f"{n['pass']} / {n['fail']} / {n['inconclusive']}"
    return row


def paper_section(name: str, title: str, items: Sequence, checks: Sequence[Mapping], status: Sequence[Mapping],
                  root: str, errata: Sequence[Mapping] = (), readings: Sequence[Mapping] = (),
                  settings: Mapping | None = None) -> list[str]:
    """The Markdown lines of one paper (paths of figures relative to ``root``): first one row per
    published claim (the paper's words, what was measured, the verdict and why), then every table
    and figure with its caption (a figure's with its error bars, their source of variability and
    its compute, :mod:`.uncertainty`, run counts from ``settings``) and status, then the suite's
    tests of the theory, the errata and the numbers shown without a claim, each in its own section."""
    lines = [f"## {name}: {title}", "", f"Verdicts (after Holm's adjustment): {kind_summary(checks)}.", ""]
    published = claim_rows.rows(checks, readings, "published")
    lines += [f"### {claim_rows.KIND_TITLES['published']}", ""]
    lines += (_table(published, claim_rows.COLUMNS) if published else ["- none"]) + [""]
    by_row = {r["item"]: r for r in status}
    for item in [i for i in items if i.in_paper] + [i for i in items if not i.in_paper and i.kind != "checks"]:
        lines += [f"### {item.title}", ""]
        figures = [f"![{item.label}]({os.path.relpath(p, root)})" for p in item.outputs if p.endswith(".png")]
        lines += (figures + [""] if figures else []) + [item.caption, ""]
        bars = uncertainty.statement(name, item.id, settings) if figures else ""
        if bars:
            lines += [bars, ""]
        files = ", ".join(f"[{Path(p).name}]({os.path.relpath(p, root)})" for p in item.outputs if not p.endswith(".png"))
        if files:
            lines += [f"Files: {files}", ""]
        for p in item.outputs:
            if p.endswith(".md") and os.path.isfile(p):  # a table rendered as Markdown: shown inline
                lines += [_demote(Path(p).read_text(encoding="utf-8")), ""]
        if not item.in_paper:
            lines += ["*Not an item of the paper: the suite's own table or figure.*", ""]
            continue
        rows = [by_row[j] for j in item.judged_by if j in by_row] or [by_row.get(item.label)]
        for row in filter(None, rows):
            lines += [f"**Status ({row['item']}):** {row['status']} ({row['checks_passed']}/{row['checks_total']} "
                      f"published claims pass); claims: "
                      + ", ".join(f"`{c['claim_id']}`" for c in checks
                                  if c["item"] == row["item"] and c["kind"] == "published"), ""]
    for kind in ("theory", "erratum", "shown"):
        mine = claim_rows.rows(checks, readings, kind)
        if mine:
            lines += [f"### {claim_rows.KIND_TITLES[kind]}", "",
                      "These set no item's status." if kind != "shown" else "No claim: shown only.", ""]
            lines += _table(mine, claim_rows.COLUMNS) + [""]
    lines += ["### Errata in the paper text", "",
              "Errors in the text that the suite found and how it proceeds (the registry's `errata`, with the "
              "evidence the build shows).", ""]
    lines += (_table(errata, ("id", "lines", "printed", "used", "evidence")) if errata else ["- none recorded"]) + [""]
    return lines


def suite_section(title: str, intro: str, items: Sequence, root: str) -> list[str]:
    """The Markdown lines of a suite's own experiment (no checks, no status): each item with its
    figures inline, its caption and its files (paths relative to ``root``)."""
    lines = [f"## {title}", "", intro, ""]
    for item in items:
        lines += [f"### {item.title}", ""]
        lines += [f"![{item.label}]({os.path.relpath(p, root)})" for p in item.outputs if p.endswith(".png")]
        lines += ["", item.caption, ""]
        files = ", ".join(f"[{Path(p).name}]({os.path.relpath(p, root)})" for p in item.outputs if not p.endswith(".png"))
        lines += [f"Files: {files}.", ""] if files else []
    return lines


def write_report(out_path: str, root: str, papers: Mapping[str, tuple[str, Sequence, Sequence]],
                 checks: Mapping[str, str], status_csv: str, fidelity: str, throughput_md: str | None = None,
                 suite: Sequence[tuple[str, str, Sequence]] = ()) -> str:
    """Write ``REPORT.md``: ``papers`` maps a paper to (title, items, errata) or (title, items,
    errata, settings) (its effective settings: the run counts its figures' error bars state),
    ``checks`` to its ``checks.csv``; then the suite's own experiments (``suite``: title,
    introduction, items; e.g. the benchmark of record); the engine throughput table
    (``throughput_md``, host dependent) closes it; returns the text."""
    status = read_csv_rows(status_csv)
    lines = ["# Replication report", "",
             f"Generated by the workflow at fidelity `{fidelity}` from the papers' `checks.csv` and "
             "`replication_status.csv`; do not edit (rebuild with `snakemake --cores N report`).", "",
             "## Summary", "",
             "Verdicts per paper and kind (pass / fail / inconclusive, after Holm's adjustment over each paper's "
             "published checks; only published claims set a status; how a verdict is reached: `docs/verdicts.md`; "
             "what changed since the last release: [verdict_changelog.md](verdict_changelog.md)):", ""]
    lines += _table([kind_row(name, read_csv_rows(checks[name])) for name in sorted(papers)],
                    ("paper", *claim_rows.KIND_ORDER)) + [""]
    lines += _table(status, ("paper", "item", "status", "checks_passed", "checks_total", "note")) + [""]
    for name in sorted(papers):
        title, items, errata, *settings = papers[name]
        lines += paper_section(name, title, items, read_csv_rows(checks[name]),
                               [r for r in status if r["paper"] == name], root, errata, _readings_of(checks[name]),
                               settings[0] if settings else None)
    for title, intro, items in suite:
        lines += suite_section(title, intro, items, root)
    if throughput_md:  # a timing: linked, not copied, so that REPORT.md stays a deterministic output
        rel = os.path.relpath(throughput_md, root)
        lines += ["## Engine throughput", "",
                  "Single-core steps per second of every compiled algorithm at K = 5, 16, 64 and 500 "
                  f"(`duelbench bench`), measured by the workflow on the machine that built it: [{Path(rel).name}]"
                  f"({rel}) and its CSV. Host dependent, so it is not part of this file.", ""]
    text = "\n".join(lines).rstrip() + "\n"
    atomic_write_text(out_path, text)
    return text


def engine_throughput_table(config: Mapping) -> str:
    """``<figures>/engine/throughput.md``, the table of the workflow's ``engine`` target
    (workflow/rules/engine.smk, always part of the workflow), which the report links."""
    return os.path.join(figures_root(config), "engine", "throughput.md")
