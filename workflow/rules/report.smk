# Replication status of every paper: <figures>/replication_status.csv from the checks.csv that
# the papers' experiments register (any registered output named checks.csv), and the generated
# replication report <figures>/REPORT.md. Target: `report`.


STATUS_OUT = f"{dbc.figures_root(config)}/replication_status.csv"


def _items_json():
    """Every experiment's declared items, as a rule parameter of the report rules."""
    import dataclasses

    return json.dumps({n: [dataclasses.asdict(i) for i in p.items] for n, p in PLANS.items()}, sort_keys=True)


def _report_code(module):
    """Hash of a report module's code closure (a rule parameter: editing the code reruns the rule)."""
    from duelbench.provenance.codehash import module_closure_hash

    return module_closure_hash(module)


def _papers_checks(wildcards=None):
    """Every registered checks.csv (read when the DAG is built, after all rules files are included)."""
    return sorted(p for name, outs in EXPERIMENTS.items() if name != "report"
                  for p in outs if os.path.basename(p) == "checks.csv")


rule replication_status:
    input:
        _papers_checks,
    output:
        csv=report(STATUS_OUT, caption="../report/replication_status.rst", category="status"),
        meta=sidecar(STATUS_OUT),
    log:
        f"{RESULTS}/logs/{FIDELITY}/replication_status.log",
    threads: 1
    message:
        "replication status of every paper -> {output.csv}"
    params:
        fidelity=FIDELITY,
        code=_report_code("duelbench.report.status"),
        # the items the rows are about (a change of a declaration reruns the table)
        paper_items=_items_json(),
    script:
        "../scripts/status.py"


REPORT_MD = f"{dbc.figures_root(config)}/REPORT.md"


def _papers_outputs(wildcards=None):
    """Every output of the experiments that have checks (REPORT.md shows their items)."""
    papers = {os.path.basename(os.path.dirname(p)) for p in _papers_checks()}
    return sorted(p for name, outs in EXPERIMENTS.items() if name in papers for p in outs)


rule report_markdown:
    input:
        status=STATUS_OUT,
        outputs=_papers_outputs,
    output:
        md=REPORT_MD,
        meta=sidecar(REPORT_MD),
    log:
        f"{RESULTS}/logs/{FIDELITY}/report_markdown.log",
    threads: 1
    message:
        "the replication report -> {output.md}"
    params:
        code=_report_code("duelbench.report.markdown"),
        paper_items=_items_json(),
    script:
        "../scripts/report_md.py"


CHANGELOG_CSV = f"{dbc.figures_root(config)}/verdict_changelog.csv"
CHANGELOG_MD = f"{dbc.figures_root(config)}/verdict_changelog.md"


rule verdict_changelog:
    input:
        checks=_papers_checks,
        blessed=os.path.join(CHECKOUT, "data", "verdicts", "blessed.csv"),
    output:
        csv=CHANGELOG_CSV,
        md=CHANGELOG_MD,
        meta=with_sidecars([CHANGELOG_CSV, CHANGELOG_MD])[2:],
    log:
        f"{RESULTS}/logs/{FIDELITY}/verdict_changelog.log",
    threads: 1
    message:
        "verdicts changed since the blessed version -> {output.md}"
    params:
        code=_report_code("duelbench.report.changelog"),
    script:
        "../scripts/changelog.py"


register_experiment("report", with_sidecars([STATUS_OUT, REPORT_MD, CHANGELOG_CSV, CHANGELOG_MD]))
