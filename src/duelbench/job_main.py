"""Entry point of the workflow's generic jobs (a plain process: no Snakefile re-parse).

    python -m duelbench.job_main simulate OUT.npz JOB_JSON [--log FILE]
    python -m duelbench.job_main simulate-bundle OUT_DIR BUNDLE_JSON [--log FILE]
    python -m duelbench.job_main warmup FLAG ALGORITHM [--expect-hash HEX] [--log FILE]
    python -m duelbench.job_main sample OUT.npz JOB_JSON [--log FILE]
    python -m duelbench.job_main fetch-mslr FILE_NAME OUT.npz [--log FILE]

Each command is one call into :mod:`duelbench.experiments`; the rules in
workflow/rules/jobs.smk build the arguments (``workflow/scripts/job.py`` is the same command).
Ctrl-C ends a job with one line and exit status 130 (a simulation between two runs, before its
shard is written).
"""

from __future__ import annotations

import argparse
import sys

import duelbench.engine.jobs as dbj
from duelbench.provenance.interrupt import EXIT_INTERRUPTED, deferred_interrupts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="job.py", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="run one result shard")
    sim.add_argument("out")
    sim.add_argument("job", help="canonical JSON of the shard (ShardSpec.job_params())")
    sim.add_argument("--log")
    bundle = sub.add_parser("simulate-bundle", help="run the shards of a bundle in one process")
    bundle.add_argument("out", help="the bundle's folder")
    bundle.add_argument("job", help="canonical JSON of the bundle (Bundle.job_params())")
    bundle.add_argument("--log")
    samp = sub.add_parser("sample", help="compute one sample shard of an instance-sample family")
    samp.add_argument("out")
    samp.add_argument("job", help="canonical JSON of the sample shard (SampleShard.job_params())")
    samp.add_argument("--log")
    fetch = sub.add_parser("fetch-mslr", help="install one MSLR matrix (mirror or download, sha256 checked)")
    fetch.add_argument("file_name")
    fetch.add_argument("out")
    fetch.add_argument("--log")
    warm = sub.add_parser("warmup", help="compile an algorithm's numba kernels into the cache")
    warm.add_argument("flag")
    warm.add_argument("algorithm")
    warm.add_argument("--expect-hash")
    warm.add_argument("--log")
    args = parser.parse_args(argv)
    try:
        _run(args)
    except KeyboardInterrupt:
        print(f"job.py {args.command}: interrupted (Ctrl-C)", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def _run(args: argparse.Namespace) -> None:
    """The job's one call into :mod:`duelbench`; Ctrl-C held back while compiled code runs."""
    if args.command == "simulate":
        dbj.run_shard_job(args.out, args.job, log=args.log)
    elif args.command == "simulate-bundle":
        dbj.run_bundle_job(args.out, args.job, log=args.log)
    elif args.command == "fetch-mslr":
        dbj.fetch_mslr_job(args.file_name, args.out, log=args.log)
    elif args.command == "sample":
        # imported here: the experiments' sample functions and what they load (statistics,
        # reporting) are half of a simulation job's start-up when imported at the top
        from duelbench.experiments.samples import run_sample_shard

        with deferred_interrupts():
            run_sample_shard(args.out, args.job, log=args.log)
    else:
        dbj.warmup_job(args.flag, args.algorithm, log=args.log, expect_hash=args.expect_hash)


if __name__ == "__main__":
    sys.exit(main())
