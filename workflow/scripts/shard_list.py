"""Entry point of the shard-list jobs (``<plan>_shard_list`` in workflow/rules/experiments.smk).

Writes the plan's resolved shard and sample-shard paths (each an archive entry or a results file,
named as ``shard_list_inputs`` in workflow/rules/common.smk) as JSON, atomically. Only the
standard library: the job starts in a fraction of a second.
"""

import json
import os

sm = snakemake  # noqa: F821 - injected by Snakemake
path = sm.output[0]
content = {key: [str(p) for p in value] for key, value in sm.input.items()}
os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
with open(f"{path}.tmp", "w", encoding="utf-8") as fh:
    json.dump(content, fh, indent=0, sort_keys=True)
os.replace(f"{path}.tmp", path)
