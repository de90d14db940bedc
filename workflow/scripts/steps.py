"""Entry point of every plan job (a ``script:`` of workflow/rules/experiments.smk).

Calls :func:`duelbench.experiments.planning.run_steps` with the rule's experiment, its steps (and
reading variant, if any), the effective configuration, the resolved shard and sample inputs and
each step's log.
"""

from duelbench.experiments.planning import run_steps

sm = snakemake  # noqa: F821 - injected by Snakemake
named = dict(sm.input.items())
steps = list(sm.params.steps)
run_steps(sm.params.experiment, steps, sm.config, shards=named.get("shards", ()),
          samples={s: named[f"{s}__samples"] for s in steps if f"{s}__samples" in named},
          logs=dict(sm.log.items()), reading=sm.params.reading or None, bench_all_plan=bool(sm.params.bench_all))
