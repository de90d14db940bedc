"""sha256 manifests of the built outputs: a committed record of what a build produced.

A manifest lists ``<sha256>  <path>`` (paths relative to a figures folder, sorted) of every
output of the listed experiments plus ``replication_status.csv`` and ``REPORT.md``, without provenance sidecars
(``*.json``) and timing tables (:data:`TIMING_TABLES`), which record the machine and the time.
``figures/MANIFEST.sha256`` records the committed paper-fidelity outputs;
``tests/data/quick_outputs.sha256`` the quick-fidelity build. ::

    python -m duelbench.report.manifest write figures figures/MANIFEST.sha256 komiyama2016 zoghi2015
    python -m duelbench.report.manifest check figures figures/MANIFEST.sha256
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

#: Outputs that record wall or CPU time, hence differ between builds of the same results (Chen
#: et al.'s time-per-round table and its figure included).
TIMING_TABLES = ("throughput.csv", "appendix_c_cost.csv", "runtime.csv", "runtime.png", "runtime.pdf")
STATUS = "replication_status.csv"
#: Outputs of the figures folder itself (not of one experiment).
TOP_LEVEL = (STATUS, "REPORT.md", "verdict_changelog.csv", "verdict_changelog.md")


def output_files(root: str | Path, experiments: Iterable[str]) -> list[str]:
    """Paths (relative to ``root``) of the listed experiments' outputs and the status table."""
    root = Path(root)
    found = [root / name for name in TOP_LEVEL if (root / name).is_file()]
    for name in experiments:
        found += [p for p in (root / name).rglob("*") if p.is_file()]
    return sorted(str(p.relative_to(root)) for p in found if p.suffix != ".json" and p.name not in TIMING_TABLES)


def digest(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def read(manifest: str | Path) -> dict[str, str]:
    """path -> sha256 of a manifest file (comment lines start with ``#``)."""
    rows = {}
    for n, line in enumerate(Path(manifest).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2 or len(parts[0]) != 64:
            raise ValueError(f"{manifest}:{n}: expected '<sha256>  <path>', got {line!r}")
        rows[parts[1]] = parts[0]
    return rows


def experiments_of(manifest: dict[str, str]) -> list[str]:
    return sorted({p.split("/", 1)[0] for p in manifest if "/" in p})


def compare(root: str | Path, manifest: dict[str, str]) -> dict[str, list[str]]:
    """``added`` (built, not listed), ``missing`` (listed, not built) and ``changed`` outputs."""
    built = output_files(root, experiments_of(manifest))
    return {"added": sorted(set(built) - set(manifest)), "missing": sorted(set(manifest) - set(built)),
            "changed": sorted(p for p in set(built) & set(manifest) if digest(Path(root) / p) != manifest[p])}


def write(root: str | Path, out: str | Path, experiments: Sequence[str], header: str = "") -> int:
    """Write the manifest of ``root``'s outputs of ``experiments``; returns the number of files."""
    paths = output_files(root, experiments)
    lines = [f"# {h}" for h in header.splitlines()] + [f"{digest(Path(root) / p)}  {p}" for p in paths]
    Path(out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(paths)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m duelbench.report.manifest", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="record the outputs of a figures folder")
    w.add_argument("root")
    w.add_argument("manifest")
    w.add_argument("experiments", nargs="+")
    w.add_argument("--header", default="")
    c = sub.add_parser("check", help="compare a figures folder with a manifest (exit 1 on any difference)")
    c.add_argument("root")
    c.add_argument("manifest")
    args = p.parse_args(argv)
    if args.command == "write":
        print(f"{write(args.root, args.manifest, args.experiments, args.header)} outputs -> {args.manifest}")
        return 0
    diff = compare(args.root, read(args.manifest))
    for kind, paths in diff.items():
        for path in paths:
            print(f"{kind:8s} {path}")
    return 1 if any(diff.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
