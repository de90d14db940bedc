"""Entry point of the report_markdown rule (a ``script:`` of workflow/rules/report.smk):
``<figures>/REPORT.md`` from the papers' plans, checks.csv and the status table."""

from duelbench.experiments.reporting import write_report

sm = snakemake  # noqa: F821 - injected by Snakemake
write_report(sm.config, sm.output.md, sm.input.status)  # links the engine target's throughput table
