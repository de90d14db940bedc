"""Entry point of the ``bench_all_leaderboard`` rule (workflow/rules/experiments.smk): the
benchmarked algorithm's row of every instance of the benchmark's table
(:func:`duelbench.experiments.bench_all.write_leaderboard`)."""

from duelbench.experiments.bench_all import write_leaderboard

sm = snakemake  # noqa: F821 - injected by Snakemake
rows = write_leaderboard(sm.params.algorithm, sm.input[0], {"csv": sm.output.csv, "md": sm.output.md},
                         sm.params.fidelity)
with open(sm.log[0], "w", encoding="utf-8") as fh:
    fh.write(f"{len(rows)} instances ranked\n")
