"""Entry point of the replication_status rule (a ``script:`` of workflow/rules/report.smk): the
status table from the papers' checks.csv and the items their plans declare."""

from duelbench.experiments.reporting import configured_items
from duelbench.report.status import write_replication_status

sm = snakemake  # noqa: F821 - injected by Snakemake
write_replication_status(list(sm.input), sm.output.csv, fidelity=sm.params.fidelity, log=sm.log[0],
                         items=configured_items(sm.config))
