# Replication status of every paper: <figures>/replication_status.csv from the checks.csv that
# the papers' experiments register (any registered output named checks.csv). Target: `report`.

import duelbench.report.status as dbx_status

STATUS_OUT = f"{dbx.figures_root(config)}/replication_status.csv"


def _papers_checks(wildcards=None):
    """Every registered checks.csv (read when the DAG is built, after all rules files are included)."""
    return sorted(p for name, outs in EXPERIMENTS.items() if name != "report"
                  for p in outs if os.path.basename(p) == "checks.csv")


rule replication_status:
    input:
        _papers_checks,
    output:
        csv=STATUS_OUT,
        meta=sidecar(STATUS_OUT),
    log:
        f"{RESULTS}/logs/{FIDELITY}/replication_status.log",
    threads: 1
    message:
        "replication status of every paper -> {output.csv}"
    run:
        dbx_status.write_replication_status(list(input), output.csv, fidelity=FIDELITY, log=log[0])


register_experiment("report", with_sidecars([STATUS_OUT]))
