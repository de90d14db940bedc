# Replication status of every paper: <figures>/replication_status.csv from the checks.csv that
# the papers' experiments register (any registered output named checks.csv), and the generated
# replication report <figures>/REPORT.md. Target: `report`.


STATUS_OUT = f"{dbc.figures_root(config)}/replication_status.csv"


rule replication_status:
    input:
        _papers_checks,
    output:
        csv=report(
            STATUS_OUT, caption="../report/replication_status.rst", category="status"
        ),
        meta=sidecar(STATUS_OUT),
    log:
        f"{RESULTS}/logs/{FIDELITY}/replication_status.log",
    conda:
        "../envs/duelbench.yaml"
    threads: 1
    params:
        fidelity=FIDELITY,
        code=_report_code("duelbench.report.status"),
        # the items the rows are about (a change of a declaration reruns the table)
        paper_items=_items_json(),
    message:
        "replication status of every paper -> {output.csv}"
    script:
        "../scripts/status.py"


REPORT_MD = f"{dbc.figures_root(config)}/REPORT.md"


rule report_markdown:
    input:
        status=STATUS_OUT,
        outputs=_papers_outputs,
    output:
        md=REPORT_MD,
        meta=sidecar(REPORT_MD),
    log:
        f"{RESULTS}/logs/{FIDELITY}/report_markdown.log",
    conda:
        "../envs/duelbench.yaml"
    threads: 1
    params:
        code=_report_code("duelbench.report.markdown"),
        paper_items=_items_json(),
    message:
        "the replication report -> {output.md}"
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
    conda:
        "../envs/duelbench.yaml"
    threads: 1
    params:
        code=_report_code("duelbench.report.changelog"),
    message:
        "verdicts changed since the blessed version -> {output.md}"
    script:
        "../scripts/changelog.py"


register_experiment(
    "report", with_sidecars([STATUS_OUT, REPORT_MD, CHANGELOG_CSV, CHANGELOG_MD])
)
