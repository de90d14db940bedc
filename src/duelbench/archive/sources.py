"""Where a planned piece of work is read from: its archive entry, or its results file.

The decision shared by simulation shards (:mod:`duelbench.engine.shard_sources`) and sample
shards (:mod:`duelbench.experiments.samples`): a planned item is read from the archive when the
archive holds it under the key this process computes and the entry is intact, otherwise from
its results file (which the workflow then computes).  Each item is looked up once per process,
so the workflow's plan and the job that reads the item take the same decision.

The archive folder comes from ``$DUELBENCH_ARCHIVE`` (``off`` disables it); the workflow sets it
from its ``archive`` config key.

The workflow resolves its inputs with :meth:`EntrySources.planned_source`: a results file that
does not match its provenance sidecar (or has none) is set aside with a warning, so the workflow
recomputes it, and every item the workflow will compute instead of reading it from the archive
is recorded (:attr:`EntrySources.fallbacks`, reported by :mod:`duelbench.archive.fallbacks`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from duelbench.provenance.integrity import REJECTED, ResultsFileError, move_aside, set_aside

from .fallbacks import Fallback, reason_of
from .store import VALID, Archive, Lookup

#: Environment variable naming the archive folder; ``off`` (or empty) disables the archive.
ENV = "DUELBENCH_ARCHIVE"
OFF = ("", "off", "false", "0", "none")


def archive_root_from_env() -> str | None:
    """The archive folder named by ``$DUELBENCH_ARCHIVE``, or ``None`` when it is unset or off."""
    root = os.environ.get(ENV)
    if root is None or root.strip().lower() in OFF:
        return None
    return root


class EntrySources:
    """Resolves planned items (anything with a results-file ``path``) to their source.

    A subclass says where an item lives in the archive and under which key (:meth:`entry`); an
    exception of :attr:`unverifiable` while computing the key (e.g. a dataset not installed
    yet) means the entry cannot be verified, hence is not used.
    """

    #: Exceptions that mean the key cannot be computed yet.
    unverifiable: tuple[type[BaseException], ...] = (FileNotFoundError,)

    def __init__(self, root: str | os.PathLike | None):
        self.archive = Archive(root) if root is not None else None
        self._found: dict[str, tuple[Lookup, dict | None, str]] = {}
        #: results path -> why the workflow computes the item instead of reading its entry
        self.fallbacks: dict[str, Fallback] = {}
        self._checked: set[str] = set()

    def entry(self, item) -> tuple[str, dict]:
        """(archive path, key) of ``item`` as this process's code computes them."""
        raise NotImplementedError

    def outdated(self, item) -> str | None:
        """Why the item's existing results file was computed by other code than this process's
        (it then is recomputed like a damaged one), or ``None``; a subclass whose workflow jobs
        do not already rerun on a change of code says so here."""
        return None

    def resolved(self, item) -> tuple[Lookup, dict | None, str]:
        """(lookup, key, entry file) of ``item``, memoised per results path."""
        if self.archive is None:
            return Lookup("off"), None, ""
        found = self._found.get(item.path)
        if found is None:
            try:
                path, key = self.entry(item)
            except self.unverifiable as exc:
                found = (Lookup("unverifiable", reason=str(exc)), None, "")
            else:
                found = (self.archive.lookup(path, key), key, str(self.archive.root / path))
            self._found[item.path] = found
        return found

    def lookup(self, item) -> Lookup:
        """``valid`` (read from the archive), ``missing``, ``stale``, ``tampered``,
        ``unverifiable`` or ``off`` (read from the results file), with the reason."""
        return self.resolved(item)[0]

    def status(self, item) -> str:
        return self.lookup(item).status

    def measured_cpu_s(self, item) -> float | None:
        """The CPU seconds the job that computed ``item``'s valid entry measured (None: the entry
        is not valid for this code, or its manifest line records no measurement)."""
        found, _, entry = self.resolved(item)
        if found.status != VALID:
            return None
        measured = self.archive.measured(str(Path(entry).relative_to(self.archive.root)))
        return None if measured is None else float(measured["cpu_s"])

    def source(self, item) -> str:
        """The file the item is read from: the archive entry if valid, else its results file."""
        found, _, entry = self.resolved(item)
        return entry if found.status == VALID else item.path

    def planned_source(self, item) -> str:
        """:meth:`source` for the workflow's plan.

        When the item is read from its results file, a file that does not match its provenance
        sidecar, or that other code computed (:meth:`outdated`), is first set aside
        (:func:`~duelbench.provenance.integrity.set_aside`, one warning line on stderr naming it); an item whose results file is absent is recorded in
        :attr:`fallbacks` with the archive's reason, and with the reason its file was set aside
        (now or by an earlier plan, if it has not been recomputed since): the workflow forces
        the recomputation of those (:meth:`rejected`), so the outputs that read them follow.
        """
        found, _, entry = self.resolved(item)
        if found.status == VALID:
            return entry
        if item.path not in self._checked:
            self._checked.add(item.path)
            problem = set_aside(item.path)
            if problem is None and os.path.isfile(item.path):
                problem = self.outdated(item)
                if problem is not None:
                    move_aside(item.path)
            if problem is not None:
                print(f"duelbench: warning: {item.path}: {problem}; moved aside to {item.path}{REJECTED}, "
                      "the workflow recomputes it", file=sys.stderr, flush=True)
            elif not os.path.isfile(item.path) and os.path.isfile(item.path + REJECTED):
                problem = f"set aside earlier ({item.path}{REJECTED}), not recomputed since"
            if not os.path.isfile(item.path):
                self.fallbacks[item.path] = Fallback(item, reason_of(found), problem)
        return item.path

    def require_file(self, item) -> None:
        """Raise :class:`~duelbench.provenance.integrity.ResultsFileError` naming the item, why
        the archive's entry is not used and the fix, when the item is read outside the workflow
        (a step run by hand, a test) and its results file was never computed."""
        if os.path.isfile(item.path):
            return
        found, _, entry = self.resolved(item)
        where = f" (entry {entry})" if entry else ""
        raise ResultsFileError(
            f"{item.path}: not computed, and the archive's entry is not used{where}: {reason_of(found)}; "
            "compute it with the workflow (snakemake builds it before the step that reads it), or restore an "
            "archive whose entry this code accepts")

    def rejected(self, item) -> bool:
        """Whether :meth:`planned_source` found the item's results file set aside (the workflow
        recomputes it even where the outputs that read it look up to date)."""
        fallback = self.fallbacks.get(item.path)
        return fallback is not None and fallback.rejected is not None
