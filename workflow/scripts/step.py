"""Entry point of every experiment step (a ``script:`` of workflow/rules/experiments.smk).

Calls :func:`duelbench.experiments.planning.run_step` with the rule's experiment, step (and
reading variant, if any), the effective configuration and its named input, output and log files.
"""

from duelbench.experiments.planning import run_step

sm = snakemake  # noqa: F821 - injected by Snakemake
run_step(sm.params.experiment, sm.params.step, sm.config, dict(sm.input.items()), dict(sm.output.items()),
         log=sm.log[0] if sm.log else None, reading=sm.params.reading or None, bench_all_plan=bool(sm.params.bench_all))
