"""Entry point of the engine_throughput rule (a ``script:`` of workflow/rules/engine.smk)."""

import contextlib

from duelbench.bench import write_for_workflow

sm = snakemake  # noqa: F821 - injected by Snakemake
with open(sm.log[0], "w") as log, contextlib.redirect_stdout(log):
    write_for_workflow(dict(sm.params.settings), sm.output.csv, sm.output.md)
    print(open(sm.output.md).read(), flush=True)
