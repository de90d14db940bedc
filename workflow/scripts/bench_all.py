"""Entry point of the ``bench_all_leaderboard`` rule (workflow/rules/experiments.smk): the
leaderboard of the benchmarked algorithm (:func:`duelbench.experiments.bench_all.write_leaderboard`)."""

import json

from duelbench.experiments.bench_all import write_leaderboard

sm = snakemake  # noqa: F821 - injected by Snakemake
rows = write_leaderboard(sm.params.algorithm, {k: tuple(v) for k, v in json.loads(sm.params.curves).items()},
                         {"csv": sm.output.csv, "md": sm.output.md}, sm.params.fidelity)
with open(sm.log[0], "w", encoding="utf-8") as fh:
    fh.write(f"{len(rows)} instances ranked\n")
