"""Entry point of the replication_status rule (a ``script:`` of workflow/rules/report.smk): the
status table from the papers' checks.csv and the items their plans declare."""

from duelbench.experiments.contract import configured, plan
from duelbench.report.status import write_replication_status

sm = snakemake  # noqa: F821 - injected by Snakemake
items = {name: plan(sm.config, name).items for name in configured(sm.config)}
write_replication_status(list(sm.input), sm.output.csv, fidelity=sm.params.fidelity, log=sm.log[0], items=items)
