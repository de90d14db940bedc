"""``duelbench archive``: put finished simulation shards into the results archive, and inspect it.

::

    duelbench archive add --kinds copeland results/paper/sushi/rucb-*/T1000000/runs-*.npz
    duelbench archive status          # entries per state for this code: valid, stale, tampered
    duelbench archive sizes           # bytes per entry kind and per dataset

``add`` recomputes nothing: it converts workflow shards (``results/<fidelity>/...npz``) into
archive entries keyed by this process's code and lock hashes, and refuses a shard whose
provenance sidecar shows other code, another lock file or other bytes (a long build freezes the
simulation code while it runs).  The default archive is ``<checkout>/archive``.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from duelbench.algorithms.registry import source_hash
from duelbench.archive.store import VALID, Archive
from duelbench.provenance.codehash import PACKAGE_ROOT, lock_hash
from duelbench.provenance.sidecar import code_mismatches, file_sha256, read_sidecar

from . import shard_archive
from .result import RECORDED_KINDS
from .shards import load_shards

DEFAULT_ROOT = PACKAGE_ROOT.parent.parent / "archive"


def computed_here(path: str, algorithm: str) -> None:
    """Raise ValueError unless the shard's sidecar shows this code, this lock file and its bytes."""
    try:
        content = read_sidecar(path)["content"]
    except FileNotFoundError:
        raise ValueError(f"{path}: no provenance sidecar {path}.json; rebuild the shard with the workflow") from None
    problems = []
    if content.get("output_sha256") != file_sha256(path):
        problems.append("its bytes differ from the sha256 in its sidecar")
    mismatched = code_mismatches(content, "source_hash", source_hash(algorithm), lock_hash())
    if "source_hash" in mismatched:
        problems.append("it was computed by other code (source_hash differs)")
    if "lock_hash" in mismatched:
        problems.append("it was computed under another requirements.lock (or the sidecar does not record it)")
    if problems:
        raise ValueError(f"{path}: not archived: {'; '.join(problems)}. Recompute it with this code "
                         f"(delete it and run the workflow), then add it.")


def _add(args) -> int:
    archive = Archive(args.archive)
    for path in args.shards:
        result = load_shards([path])
        computed_here(path, result.algorithm)
        row = shard_archive.archive_result(archive, result, args.kinds)
        print(f"{path} -> {row['path']} ({row['bytes']} bytes)")
    return 0


def _status(args) -> int:
    archive = Archive(args.archive)
    counts = Counter()
    for path, row in sorted(archive.manifest().items()):
        key = row["key"]
        if key.get("kind") != shard_archive.KIND:
            # sample shards are keyed by their experiment's code: checked by
            # `python -m duelbench.experiments.archiving --report`
            counts[f"{key.get('kind')} (not checked here)"] += 1
            continue
        found, _ = shard_archive.lookup_shard(archive, key["dataset"], key["algorithm"], key["params"], key["horizon"],
                                              *key["runs"], key["seed"], key["kinds"])
        counts[found.status] += 1
        if found.status != VALID or args.verbose:
            print(f"{found.status:9s} {path} {found.reason}")
    print(", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "empty archive")
    return 0 if all(s == VALID or s.endswith("(not checked here)") for s in counts) else 1


def _sizes(args) -> int:
    rows = Archive(args.archive).manifest().values()
    by = Counter()
    for row in rows:
        by[(row["key"].get("kind"), row["key"].get("dataset"))] += row["bytes"]
    for (kind, dataset), n in sorted(by.items()):
        print(f"{kind:12s} {dataset:32s} {n / 1e6:8.3f} MB")
    print(f"{'total':45s} {sum(by.values()) / 1e6:8.3f} MB in {len(rows)} entries")
    return 0


def _kinds(text: str) -> list[str]:
    kinds = [k for k in text.split(",") if k]
    bad = sorted(set(kinds) - set(RECORDED_KINDS))
    if bad or not kinds:
        raise argparse.ArgumentTypeError(f"unknown regret kind(s) {bad}; choose from {', '.join(RECORDED_KINDS)}")
    return kinds


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="duelbench archive", description=__doc__.split("\n\n")[0])
    p.add_argument("--archive", type=Path, default=DEFAULT_ROOT, help=f"archive folder (default: {DEFAULT_ROOT})")
    sub = p.add_subparsers(dest="action", required=True)
    a = sub.add_parser("add", help="convert workflow shards (.npz) into archive entries")
    a.add_argument("--kinds", required=True, type=_kinds,
                   help=f"comma-separated regret kinds to keep, those the experiments read ({', '.join(RECORDED_KINDS)})")
    a.add_argument("shards", nargs="+", help="shard files results/<fidelity>/.../runs-a-b.npz")
    s = sub.add_parser("status", help="check every entry against this code (exit 1 if any is not valid)")
    s.add_argument("-v", "--verbose", action="store_true", help="list valid entries too")
    sub.add_parser("sizes", help="archive bytes per dataset")
    args = p.parse_args(argv)
    try:
        return {"add": _add, "status": _status, "sizes": _sizes}[args.action](args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"duelbench archive: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
