"""``duelbench archive``: put finished simulation shards into the results archive, and inspect it.

::

    duelbench archive add --kinds copeland results/paper/sushi/rucb-*/T1000000/runs-*.npz
    duelbench archive status          # every entry per state for this code: valid, stale, tampered
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
from collections.abc import Callable, Mapping
from pathlib import Path

from duelbench.algorithms.registry import source_hash
from duelbench.archive.store import VALID, Archive, Lookup
from duelbench.data.errors import DataError
from duelbench.provenance.codehash import PACKAGE_ROOT, lock_hash
from duelbench.provenance.sidecar import code_mismatches, file_sha256, read_sidecar, run_measurement

from . import shard_archive
from .result import RECORDED_KINDS
from .shards import load_shards

DEFAULT_ROOT = PACKAGE_ROOT.parent.parent / "archive"
#: Status of an intact entry of a kind no checker of this command knows (not valid: exit 1).
UNCHECKED = "unchecked"
#: Exceptions meaning an entry's key cannot be computed here (e.g. its dataset is not installed).
UNVERIFIABLE = (FileNotFoundError, DataError)


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
        row = shard_archive.archive_result(archive, result, args.kinds, run_measurement(path))
        print(f"{path} -> {row['path']} ({row['bytes']} bytes)")
    return 0


def lookup_simulation(archive: Archive, path: str, key: dict) -> Lookup:
    """The lookup of a simulation entry under the key this process's code computes for it."""
    found, _ = shard_archive.lookup_shard(archive, key["dataset"], key["algorithm"], key["params"], key["horizon"],
                                          *key["runs"], key["seed"], key["kinds"])
    return found


#: entry kind -> function(archive, path, manifest key) -> Lookup against this process's code
CHECKERS: dict[str, Callable[[Archive, str, dict], Lookup]] = {shard_archive.KIND: lookup_simulation}


def check_entry(archive: Archive, path: str, key: dict, checkers: Mapping[str, Callable]) -> tuple[str, str]:
    """(status, reason) of one entry: its kind's checker (key recomputed by this code), else its
    integrity only (sha256, decodable, the key inside equal to the manifest's)."""
    checker = checkers.get(key.get("kind"))
    if checker is None:
        found = archive.lookup(path, key)
        if found.status == VALID:
            return UNCHECKED, f"kind {key.get('kind')!r}: intact, but no check of its key against this code here"
        return found.status, found.reason
    try:
        found = checker(archive, path, key)
    except UNVERIFIABLE as exc:
        return "unverifiable", str(exc)
    return found.status, found.reason


def _status(args, checkers: Mapping[str, Callable] = CHECKERS) -> int:
    archive = Archive(args.archive)
    counts = Counter()
    for path, row in sorted(archive.manifest().items()):
        status, reason = check_entry(archive, path, row["key"], checkers)
        counts[status] += 1
        if status != VALID or args.verbose:
            print(f"{status:9s} {path} {reason}")
    print(", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "empty archive")
    return 0 if set(counts) <= {VALID} else 1


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


def main(argv=None, checkers: Mapping[str, Callable] = CHECKERS) -> int:
    """``duelbench archive``; ``checkers``: entry kind -> lookup against this code (``status``
    checks the other kinds' integrity only and reports them as unchecked)."""
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
        if args.action == "status":
            return _status(args, checkers)
        return {"add": _add, "sizes": _sizes}[args.action](args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"duelbench archive: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
