"""Where a planned simulation shard is read from: the results archive or the results folder.

A workflow asks for each shard it aggregates.  If the archive (:mod:`duelbench.archive`) holds
the shard under a key equal to the one this process computes (same job, same matrix bytes,
same code closure, same ``requirements.lock``) and the entry's sha256 matches the manifest, the
shard is read from the archive: no simulation, no numba compile.  Otherwise (no entry, a stale
or a tampered one) it is the results file ``results/<fidelity>/…/runs-<a>-<b>.npz``, which the
workflow simulates.  The same decision is taken when the workflow is planned
(:meth:`ShardSources.source`) and when an aggregate job reads the shard
(:meth:`ShardSources.load`), so a shard is never read from an entry the plan rejected
(:class:`duelbench.archive.sources.EntrySources`, shared with the sample shards).

A shard read from its results file is first checked against its provenance sidecar and for the
runs its name promises (:func:`duelbench.engine.shards.load_shards`,
:func:`~duelbench.engine.shards.check_runs`): a mismatch raises an error naming the file.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from pathlib import Path

from duelbench.archive.sources import EntrySources, archive_root_from_env
from duelbench.archive.store import VALID
from duelbench.data.errors import DataError

from . import shard_archive
from .result import SimulationResult
from .shards import check_runs, load_shards

class ShardSources(EntrySources):
    """Resolves planned shards (:class:`duelbench.engine.jobs.ShardSpec`) to their source.

    Parameters
    ----------
    root : str or None
        The archive folder; ``None`` reads every shard from the results folder.
    kinds : iterable of str
        The regret kinds the reader needs; an entry is used only if it holds at least these
        (they are part of its key).
    """

    unverifiable = (FileNotFoundError, DataError)

    def __init__(self, root: str | os.PathLike | None, kinds: Iterable[str]):
        super().__init__(root)
        self.kinds = tuple(sorted(set(kinds)))

    def entry(self, spec) -> tuple[str, dict]:
        path = shard_archive.entry_path(spec.dataset, spec.algorithm, spec.params, spec.horizon,
                                        spec.run_start, spec.run_stop, spec.seed)
        # an entry that keeps more kinds than this reader needs (a shard shared by two
        # experiments) is keyed, hence checked, with its own kinds
        row = self.archive.manifest().get(path)
        kinds = self.kinds
        if row is not None and set(self.kinds) <= set(row["key"].get("kinds", ())):
            kinds = tuple(row["key"]["kinds"])
        return path, shard_archive.shard_key(spec.dataset, spec.algorithm, spec.params, spec.horizon,
                                             spec.run_start, spec.run_stop, spec.seed, kinds)

    def load(self, specs) -> SimulationResult:
        """The runs of ``specs`` (one job's shards, in run order), each from its source."""
        parts = []
        for spec in specs:
            found, key, _ = self.resolved(spec)
            if found.status == VALID:
                part = shard_archive.from_arrays(key, found.arrays)
            else:
                self.require_file(spec)
                part = load_shards([spec.path])
                check_runs(spec.path, part, spec.run_start, spec.run_stop)
            # keep the reader's kinds only, so that archived and recomputed shards stack
            parts.append(dataclasses.replace(part, regrets={k: part.regrets[k] for k in self.kinds}))
        return SimulationResult.concatenate(parts)


_SOURCES: dict[tuple, ShardSources] = {}


def opened() -> list[ShardSources]:
    """Every :class:`ShardSources` :func:`sources_for` has made in this process (the workflow
    reports their :attr:`~duelbench.archive.sources.EntrySources.fallbacks`)."""
    return list(_SOURCES.values())


def sources_for(kinds: Iterable[str]) -> ShardSources:
    """The :class:`ShardSources` of this process for ``kinds`` (archive from ``$DUELBENCH_ARCHIVE``;
    one instance per (archive, kinds), so each entry is verified once per process)."""
    root = archive_root_from_env()
    key = (os.path.abspath(root) if root else None, tuple(sorted(set(kinds))))
    if key not in _SOURCES:
        _SOURCES[key] = ShardSources(Path(root) if root else None, kinds)
    return _SOURCES[key]
