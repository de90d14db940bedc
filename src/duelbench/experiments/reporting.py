"""The report of the configured experiments: their items and checks handed to :mod:`duelbench.report`.

The report layer knows checks, statuses and Markdown, not experiments; this module, above both,
plans each configured paper to collect what the report shows of it (its items, its
``checks.csv``) and is what the workflow's report rules and ``duelbench status`` call.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from duelbench.config import figures_root
from duelbench.config.files import checkout_config
from duelbench.provenance.sidecar import Timer, write_sidecar
from duelbench.report import markdown, status
from duelbench.report.checks import load_registry

from .contract import configured
from .planning import plan


def configured_items(config: Mapping) -> dict[str, list]:
    """paper -> the items its plan declares, for every experiment configured in ``config``."""
    return {name: plan(config, name).items for name in configured(config)}


def paper_checks(config: Mapping) -> dict[str, tuple]:
    """paper -> (its plan, the path of its ``checks.csv``), for every configured experiment that
    writes one."""
    out = {}
    for name in configured(config):
        p = plan(config, name)
        found = [o for o in p.outputs() if os.path.basename(o) == "checks.csv"]
        if found:
            out[name] = (p, found[0])
    return out


#: The suite's own experiments REPORT.md shows after the papers (when ``all`` builds them), with
#: the title and introduction of their section.
SUITE_SECTIONS = {
    "benchmark": ("The benchmark of record",
                  "Every regret-minimising algorithm on every published regret instance, each instance under its "
                  "paper's protocol; not a paper's claim, so it sets no status (`duelbench.experiments.benchmark`)."),
}


def suite_sections(config: Mapping) -> list[tuple[str, str, list]]:
    """(title, introduction, items) of each configured experiment of :data:`SUITE_SECTIONS` that
    ``all`` builds."""
    out = []
    for name, (title, intro) in SUITE_SECTIONS.items():
        if name in configured(config):
            p = plan(config, name)
            if p.in_all:
                out.append((title, intro, p.items))
    return out


def missing_checks(config: Mapping) -> list[str]:
    """The ``checks.csv`` files of configured papers that are not on disk (sorted)."""
    return sorted(path for _, path in paper_checks(config).values() if not os.path.isfile(path))


def write_report(config: Mapping, out_path: str, status_csv: str, throughput_md: str | None = None,
                 built_only: bool = False) -> list[str]:
    """``REPORT.md`` of every configured experiment that has a ``checks.csv`` (its title from its
    registry) and the link to the engine throughput table (``throughput_md``, default
    :func:`duelbench.report.markdown.engine_throughput_table`: the link is there whether or not the
    table is built, so the
    report of ``duelbench status --report`` is the one the workflow writes), with a provenance
    sidecar; returns the inputs read.

    ``built_only`` leaves out the experiments whose ``checks.csv`` is not on disk (``duelbench
    status --report``: the report of the papers built so far); the workflow rule needs them all.
    When the file already holds exactly the text it would get, it and its sidecar are left as
    they are, so a committed report keeps its provenance."""
    papers, checks = {}, {}
    for name, (p, path) in paper_checks(config).items():
        if not (built_only and not os.path.isfile(path)):
            registry = load_registry(os.path.join("data", "published", f"{name}.yaml"))
            papers[name], checks[name] = (registry["title"], p.items, registry.get("errata", []), p.settings), path
    if throughput_md is None:  # linked as the workflow links it, whether or not it is built here
        throughput_md = markdown.engine_throughput_table(config)
    suite = suite_sections(config)
    inputs = [status_csv, *checks.values()]  # the throughput table is linked, not read
    if built_only and os.path.isfile(out_path) and os.path.isfile(out_path + ".json"):
        with tempfile.TemporaryDirectory() as tmp:
            probe = markdown.write_report(os.path.join(tmp, "REPORT.md"), figures_root(config), papers, checks, status_csv,
                                          config["fidelity"], throughput_md, suite)
        if probe == Path(out_path).read_text(encoding="utf-8"):
            return inputs
    with Timer() as t:
        markdown.write_report(out_path, figures_root(config), papers, checks, status_csv, config["fidelity"], throughput_md,
                              suite)
    write_sidecar(out_path, inputs=inputs, config={"fidelity": config["fidelity"]}, extra={"papers": sorted(papers)},
                  **t.as_kwargs())
    return inputs


def main(argv: Sequence[str] | None = None) -> int:
    """``duelbench status``: rewrite ``replication_status.csv`` from the ``checks.csv`` on disk."""
    p = argparse.ArgumentParser(
        prog="duelbench status",
        description="Rewrite <figures>/replication_status.csv (+ sidecar) from every "
        "<figures>/<paper>/checks.csv already on disk, without running the workflow.",
    )
    p.add_argument("--figures", default="figures", help="folder holding one <paper>/checks.csv per paper (default: figures)")
    p.add_argument("--out", default=None, help="output CSV (default: <figures>/replication_status.csv)")
    p.add_argument("--fidelity", default=None, help="fidelity named in the notes (default: the checks' own)")
    p.add_argument("--report", action="store_true",
                   help="also rewrite <figures>/REPORT.md (the workflow's figures folder only); refused "
                   "when a configured paper's checks.csv is missing, unless --allow-missing")
    p.add_argument("--allow-missing", action="store_true",
                   help="with --report: write the report of the papers whose checks.csv is on disk, "
                   "leaving the others out")
    args = p.parse_args(argv)
    paths = sorted(glob.glob(os.path.join(args.figures, "*", "checks.csv")))
    if not paths:
        print(f"duelbench status: error: no {args.figures}/<paper>/checks.csv found; build a paper first "
              f"(e.g. 'snakemake --cores 2 komiyama2016') or pass --figures", file=sys.stderr)
        return 2
    out = args.out or os.path.join(args.figures, "replication_status.csv")
    try:
        fidelity = args.fidelity or status.checks_fidelity(paths)
        if args.report:
            _check_report(args.figures, checkout_config(fidelity=fidelity), args.allow_missing)
        items = configured_items(checkout_config(fidelity=fidelity))
        if status.up_to_date(paths, out, args.fidelity, items):
            print(f"{out} is up to date with the checks.csv files: left as it is (and its sidecar)", file=sys.stderr)
        else:
            rows = status.write_replication_status(paths, out, fidelity=args.fidelity, items=items)
            print(f"wrote {out}: {len(rows)} items of {len({r['paper'] for r in rows})} papers", file=sys.stderr)
        if args.report:
            report = _write_report(args.figures, out, fidelity)
            print(f"{report}: papers {', '.join(sorted(p for p in items if os.path.isfile(os.path.join(args.figures, p, 'checks.csv'))))}",
                  file=sys.stderr)
    except (OSError, ValueError, KeyError) as exc:
        print(f"duelbench status: error: {exc}", file=sys.stderr)
        return 2
    return 0


def _check_report(figures: str, config: Mapping, allow_missing: bool) -> None:
    """Before anything is written: ``--figures`` is the workflow's figures folder, and every
    configured paper has its ``checks.csv`` (else ValueError naming the missing files and the fix;
    with ``allow_missing`` a warning naming them)."""
    if os.path.realpath(figures) != os.path.realpath(figures_root(config)):
        raise ValueError(f"--report writes the workflow's report: --figures must be {figures_root(config)!r} "
                         f"(config/config.yaml 'figures'), not {figures!r}")
    missing = missing_checks(config)
    if missing and not allow_missing:
        raise ValueError(f"--report would leave out of REPORT.md the papers without checks.csv: {', '.join(missing)}; "
                         "rebuild them (e.g. 'snakemake --cores 2 <paper>') or pass --allow-missing to write the "
                         "report without them")
    if missing:
        print(f"duelbench status: warning: REPORT.md leaves out the papers without checks.csv: {', '.join(missing)}",
              file=sys.stderr)


def _write_report(figures: str, status_csv: str, fidelity: str) -> str:
    """``<figures>/REPORT.md`` of the papers built so far (unchanged text: left as it is)."""
    config = checkout_config(fidelity=fidelity)
    out = os.path.join(figures, "REPORT.md")
    write_report(config, out, status_csv, built_only=True)
    return out
