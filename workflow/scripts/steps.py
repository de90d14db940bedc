"""Entry point of every plan job (a ``script:`` of workflow/rules/experiments.smk).

Calls :func:`duelbench.experiments.planning.run_steps` with the rule's experiment, its steps (and
reading variant, if any), the effective configuration, the plan's shard list (the resolved
shard and sample-shard paths) and each step's log.
"""

import json

from duelbench.experiments.planning import run_steps

sm = snakemake  # noqa: F821 - injected by Snakemake
listing = {}
if "shard_list" in dict(sm.input.items()):
    with open(sm.input.shard_list, encoding="utf-8") as fh:
        listing = json.load(fh)
samples = {key.split("__", 1)[1]: paths for key, paths in listing.items() if key.startswith("samples__")}
run_steps(sm.params.experiment, list(sm.params.steps), sm.config, shards=listing.get("shards", ()), samples=samples,
          logs=dict(sm.log.items()), reading=sm.params.reading or None, bench_all_plan=bool(sm.params.bench_all))
