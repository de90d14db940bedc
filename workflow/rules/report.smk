# Replication status of every paper: <figures>/replication_status.csv from the checks.csv that
# the papers' experiments register (any registered output named checks.csv). Target: `report`.


STATUS_OUT = f"{dbx.figures_root(config)}/replication_status.csv"


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
        # the paper items each status row is about (a change reruns the table)
        paper_items=json.dumps({n: [[i.id, i.label, i.in_paper, list(i.judged_by)] for i in p.items]
                          for n, p in PLANS.items()}, sort_keys=True),
    script:
        "../scripts/status.py"


register_experiment("report", with_sidecars([STATUS_OUT]))
