"""The results archive: entries in a folder, listed with their keys and sha256 in a manifest.

``<root>/MANIFEST.jsonl`` has one line per entry, sorted by path (small, readable git diffs)::

    {"path": "<relative path>", "key": {...}, "sha256": "<hex>", "bytes": N, "measured": {...}}

``measured`` (optional) is what the job that computed the entry measured, from its provenance
sidecar: ``cpu_s`` and ``wall_s`` (4 significant digits) and ``finished`` (UTC).  It is not part
of the key and never read as a result; it keeps the compute of every archived shard costable
(``duelbench cost``) after the machine that ran it and its sidecars are gone.

An entry is found by its *path* (the job's identity: what it computes) and used only if its
*key* (everything the content depends on: the identity plus the code and lock hashes) equals the
key the caller computes now, and the file's sha256 equals the manifest's.  :meth:`Archive.lookup`
says which of four cases holds; only ``valid`` returns arrays, so a stale or tampered entry is
recomputed, never used.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from duelbench.provenance.sidecar import atomic_write_bytes

from .entry import decode, encode

MANIFEST = "MANIFEST.jsonl"
#: Parsed manifests, shared by every :class:`Archive` of the process (the workflow and the tests
#: open one per reader): real path -> (stat stamp, path -> manifest line).
_PARSED: dict[str, tuple[tuple, dict[str, dict]]] = {}
#: Outcomes of :meth:`Archive.lookup`.
VALID, STALE, TAMPERED, MISSING = "valid", "stale", "tampered", "missing"


def canonical(obj) -> str:
    """Canonical JSON of a key (sorted keys, no whitespace)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


@dataclass
class Lookup:
    """The outcome of a lookup: ``status`` (valid, stale, tampered, missing), the arrays when
    valid, and for a stale entry the key fields that differ."""

    status: str
    arrays: dict[str, np.ndarray] | None = None
    differs: list[str] = field(default_factory=list)
    reason: str = ""


class Archive:
    """The archive rooted at ``root`` (created on the first :meth:`put`)."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        #: Key of the manifest in :data:`_PARSED` (resolved once: lookups are a hot path).
        self._parsed_key = os.path.realpath(self.root / MANIFEST)

    # -- manifest ---------------------------------------------------------------------------
    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    def manifest(self) -> dict[str, dict]:
        """path -> manifest line (empty if there is no archive yet): a mapping of the caller's own
        (adding or dropping lines leaves other readers alone; the lines themselves are shared)."""
        return dict(self._rows())

    def _rows(self) -> dict[str, dict]:
        """The parsed manifest, not to be changed; parsed again only when the file changed (a
        workflow looks up thousands of entries through several readers)."""
        try:
            st = self.manifest_path.stat()
        except FileNotFoundError:
            return {}
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        cached = _PARSED.get(self._parsed_key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        out = {}
        for n, line in enumerate(self.manifest_path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                out[row["path"]] = row
            except (json.JSONDecodeError, KeyError) as exc:
                raise ValueError(f"{self.manifest_path}:{n}: not a manifest line ({exc}); restore the file "
                                 f"from git (git checkout -- {self.manifest_path})") from None
        _PARSED[self._parsed_key] = (stamp, out)
        return out

    def _write_manifest(self, rows: Mapping[str, dict]) -> None:
        text = "".join(canonical(rows[p]) + "\n" for p in sorted(rows))
        atomic_write_bytes(self.manifest_path, text.encode("utf-8"))

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        import fcntl  # POSIX only: imported where the lock is taken

        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".lock", "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    # -- entries ----------------------------------------------------------------------------
    def lookup(self, path: str, key: Mapping) -> Lookup:
        """The entry at ``path`` if it was made under ``key`` and is intact."""
        row = self._rows().get(path)
        if row is None:
            return Lookup(MISSING)
        if canonical(row["key"]) != canonical(key):
            fields = sorted(k for k in set(row["key"]) | set(key) if row["key"].get(k) != key.get(k))
            return Lookup(STALE, differs=fields, reason=f"key differs in {', '.join(fields)}")
        file = self.root / path
        if not file.is_file():
            return Lookup(TAMPERED, reason=f"{file} is listed in the manifest but missing")
        data = file.read_bytes()
        if hashlib.sha256(data).hexdigest() != row["sha256"]:
            return Lookup(TAMPERED, reason=f"{file}: sha256 differs from the manifest")
        try:
            stored_key, arrays = decode(data)
        except ValueError as exc:
            return Lookup(TAMPERED, reason=f"{file}: {exc}")
        if canonical(stored_key) != canonical(key):
            return Lookup(TAMPERED, reason=f"{file}: the key inside the entry differs from the manifest")
        return Lookup(VALID, arrays=arrays)

    def put(self, path: str, key: Mapping, arrays: Mapping[str, np.ndarray],
            measured: Mapping | None = None) -> dict:
        """Write the entry at ``path`` (replacing any older one) and its manifest line.

        ``measured``: what the job that computed ``arrays`` measured (see the module doc);
        without it, the measurement of an older line with the same bytes is kept.
        """
        if os.path.isabs(path) or ".." in Path(path).parts:
            raise ValueError(f"archive paths are relative and inside the archive, got {path!r}")
        data = encode(key, arrays)
        row = {"path": path, "key": dict(key), "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
        with self._locked():
            atomic_write_bytes(self.root / path, data)
            rows = self.manifest()
            old = rows.get(path, {})
            if measured is None and old.get("sha256") == row["sha256"]:
                measured = old.get("measured")
            if measured is not None:
                row["measured"] = dict(measured)
            rows[path] = json.loads(canonical(row))
            self._write_manifest(rows)
        return row

    def record_measured(self, measured: Mapping[str, Mapping]) -> None:
        """Attach measurements (entry path -> measurement) to the manifest lines of existing
        entries, in one write of the manifest (their files unchanged)."""
        if not measured:
            return
        with self._locked():
            rows = self.manifest()
            missing = sorted(set(measured) - set(rows))
            if missing:
                raise KeyError(f"{self.manifest_path}: no entry {missing[0]!r} to attach a measurement to")
            for path, m in measured.items():
                rows[path] = json.loads(canonical({**rows[path], "measured": dict(m)}))
            self._write_manifest(rows)

    def measured(self, path: str) -> dict | None:
        """The measurement on the manifest line of ``path`` (None: none recorded)."""
        return self._rows().get(path, {}).get("measured")

    def remove(self, paths) -> None:
        """Drop entries (files and manifest lines)."""
        with self._locked():
            rows = self.manifest()
            for path in paths:
                rows.pop(path, None)
                with contextlib.suppress(FileNotFoundError):
                    (self.root / path).unlink()
            self._write_manifest(rows)
