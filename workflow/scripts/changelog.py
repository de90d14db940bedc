"""Entry point of the verdict_changelog rule (a ``script:`` of workflow/rules/report.smk): every
verdict of the papers' checks.csv that changed since the blessed version."""

import os

from duelbench.report.changelog import write_changelog

sm = snakemake  # noqa: F821 - injected by Snakemake
write_changelog(os.path.dirname(sm.output.csv), sm.output.csv, sm.output.md, sm.input.blessed, list(sm.input.checks))
