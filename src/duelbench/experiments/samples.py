"""Seeded instance-sample shards: the framework of every random-instance study.

Komiyama et al.'s Table 1 (random sub-matrices of an MSLR matrix), Zoghi et al.'s Appendix C
(random subsets of 136 rankers) and the instance families to come draw many random instances
and record a few numbers per instance.  A family is declared by a *job* (a JSON-able mapping:
parent data, sizes, seed, readings) and a function of the paper's package::

    function(job, a, b) -> {column: 1-D array of length b - a}

where row ``i - a`` depends only on (``job``, ``i``): the content of a shard never depends on how
the family is split.  :func:`plan_samples` splits a family into :class:`SampleShard` s at
``<results>/<fidelity>/samples/<experiment>/<family>/<layout>/samples-<a>-<b>.npz`` (``layout``
hashes the job); the generic ``sample_shard`` rule runs :func:`run_sample_shard`; steps read a
family with :func:`load_family`.

Finished shards go into the results archive (:func:`archive_sample_shards`) under a key of the
job, the sample range, the sha256 of every dataset the job reads, the columns kept (those the
family's readers use), the hash of the normalised source of the function's import closure and
``requirements.lock``; :class:`SampleSources` reads
a shard from the archive when its entry is valid for this code, else from its results file.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from duelbench.archive.sources import EntrySources, archive_root_from_env
from duelbench.archive.store import STALE, VALID, Archive, Lookup
from duelbench.data.errors import DataError
from duelbench.engine.shard_archive import matrix_sha256
from duelbench.provenance.codehash import PROVENANCE, closure_hash, lock_hash
from duelbench.provenance.integrity import FIX, ResultsFileError, read_verified
from duelbench.provenance.sidecar import (atomic_write, code_mismatches, file_sha256, read_sidecar, run_measurement,
                                         write_sidecar)

from duelbench.config import ConfigError
from duelbench.provenance.joblog import log_to
from .contract import SampleShard
from .job_identity import layout_of

KIND = "samples"


def function_reference(experiment: str, function: Callable | str) -> str:
    """``"module:function"`` of a family's function relative to the paper's package: its name in
    the family's shards and archive keys (a string is taken as it is)."""
    if isinstance(function, str):
        return function
    prefix = f"{__package__}.{experiment}."
    if not function.__module__.startswith(prefix):
        raise ConfigError(f"{experiment}: the sample function {function.__module__}.{function.__qualname__} is not a "
                          f"function of the package {prefix[:-1]}")
    return f"{function.__module__[len(prefix):]}:{function.__qualname__}"


def plan_samples(*, experiment: str, family: str, function: Callable | str, job: Mapping, n: int, per_shard: int,
                 fidelity: str, root: str, datasets: Sequence[str] = (),
                 columns: Sequence[str] = ()) -> list[SampleShard]:
    """Split samples ``0 … n − 1`` of a family into shards of at most ``per_shard`` samples.

    ``function`` is the family's function (:func:`function_reference` names it in the shards);
    ``columns``: the columns the family's readers use, which the archive keeps (all if empty);
    a shard's results file holds every column the function returns."""
    function = function_reference(experiment, function)
    if n < 1 or per_shard < 1:
        raise ConfigError(f"{experiment}.{family}: samples and samples_per_shard must be ≥ 1 (got {n}, {per_shard})")
    job = json.loads(json.dumps(job, sort_keys=True))
    folder = f"{root}/{fidelity}/{KIND}/{experiment}/{family}/{layout_of(job)}"
    return [SampleShard(experiment=experiment, family=family, function=function, job=job, a=a,
                        b=min(a + per_shard, n), path=os.path.normpath(f"{folder}/samples-{a}-{min(a + per_shard, n)}.npz"),
                        datasets=tuple(datasets), columns=tuple(columns))
            for a in range(0, n, per_shard)]


def sample_function(experiment: str, reference: str) -> Callable:
    """The family function named ``reference`` (``"module:function"`` relative to the paper's
    package, :func:`function_reference`): what a shard's job runs."""
    module, _, name = reference.partition(":")
    mod = importlib.import_module(f"{__package__}.{experiment}.{module}")
    try:
        return getattr(mod, name)
    except AttributeError:
        raise ConfigError(f"{experiment}: {mod.__name__} has no sample function {name!r}") from None


def _module_file(experiment: str, function: str) -> str:
    return sys.modules[sample_function(experiment, function).__module__].__file__


@functools.lru_cache(maxsize=None)
def function_code_hash(experiment: str, function: str) -> str:
    """Hash of the normalised source of the import closure of the function's module."""
    return closure_hash(_module_file(experiment, function), exclude=PROVENANCE)


def sample_key(shard: SampleShard) -> dict:
    """Everything a sample shard's content depends on, as this process's code computes it."""
    return {
        "kind": KIND, "experiment": shard.experiment, "family": shard.family, "function": shard.function,
        "job": shard.job, "samples": [int(shard.a), int(shard.b)],
        "datasets": {d: matrix_sha256(d) for d in sorted(shard.datasets)}, "columns": sorted(shard.columns),
        "code": function_code_hash(shard.experiment, shard.function), "lock": lock_hash(),
    }


def shard_of_key(key: Mapping) -> SampleShard:
    """The planned sample shard an archive entry's key describes (its results path left empty)."""
    a, b = key["samples"]
    return SampleShard(experiment=key["experiment"], family=key["family"], function=key["function"], job=key["job"],
                       a=int(a), b=int(b), path="", datasets=tuple(sorted(key["datasets"])),
                       columns=tuple(key["columns"]))


def lookup_entry(archive: Archive, path: str, key: Mapping) -> Lookup:
    """The lookup of the sample entry at ``path`` (manifest ``key``) under the key this
    process's code computes for the shard it describes (``duelbench archive status``); an
    entry whose function this code no longer has is stale."""
    try:
        wanted = sample_key(shard_of_key(key))
    except (ImportError, ConfigError) as exc:
        return Lookup(STALE, differs=["code"], reason=f"its function {key.get('function')!r} is not in this code: {exc}")
    return archive.lookup(path, wanted)


def entry_path(shard: SampleShard) -> str:
    """Archive path of a sample shard (its identity, without code or environment)."""
    return f"{KIND}/{shard.experiment}/{shard.family}/{layout_of(shard.job)}/samples-{shard.a}-{shard.b}.entry"


def compute(shard: SampleShard) -> dict[str, np.ndarray]:
    """Run the family's function on samples ``[a, b)``; checks the returned columns."""
    arrays = sample_function(shard.experiment, shard.function)(shard.job, shard.a, shard.b)
    n = shard.b - shard.a
    out = {}
    for name, values in arrays.items():
        values = np.asarray(values)
        if values.ndim != 1 or values.shape[0] != n:
            raise ValueError(f"{shard.experiment}:{shard.function} returned column {name!r} of shape "
                             f"{values.shape}, expected ({n},) (one value per sample)")
        out[name] = values
    return out


def run_sample_shard(out_path: str, job_params: str, log: str | None = None) -> None:
    """The ``sample_shard`` job: compute the shard described by ``job_params``
    (:meth:`SampleShard.job_params`), write ``out_path`` (.npz) and its sidecar."""
    p = json.loads(job_params)
    shard = SampleShard(experiment=p["experiment"], family=p["family"], function=p["function"], job=p["job"],
                        a=int(p["a"]), b=int(p["b"]), path=out_path, datasets=tuple(p["datasets"]))
    with log_to(log):
        t0, c0 = time.perf_counter(), time.process_time()
        arrays = compute(shard)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"{out_path}: samples {shard.a}-{shard.b} in {wall:.1f} s", flush=True)
    atomic_write(out_path, lambda fh: np.savez_compressed(fh, **arrays))
    key = sample_key(shard)
    write_sidecar(out_path, config=json.loads(job_params), seeds={"job": shard.job},
                  extra={"code_hash": key["code"], "lock_hash": key["lock"], "datasets": key["datasets"],
                         "samples": shard.b - shard.a},
                  run_info={"samples_per_second": (shard.b - shard.a) / wall if wall > 0 else None},
                  wall_time=wall, cpu_time=cpu)


class SampleSources(EntrySources):
    """Resolves sample shards to the archive entry (when valid for this code) or their file."""

    unverifiable = (FileNotFoundError, DataError)

    def entry(self, shard: SampleShard) -> tuple[str, dict]:
        return entry_path(shard), sample_key(shard)

    def outdated(self, shard: SampleShard) -> str | None:
        """A results file whose sidecar records another code hash of the sample function's import
        closure, or another ``requirements.lock``, than this process computes: the workflow's
        jobs key sample shards by their parameters only, so without this an edit of the function
        would leave its old shards in use."""
        try:
            differ = _other_code(shard, self.resolved(shard)[1])
        except self.unverifiable + (ValueError, KeyError):
            return None  # an unreadable sidecar is the integrity check's to report
        return f"computed by other code ({', '.join(differ)} differ from this checkout's)" if differ else None

    def arrays(self, shard: SampleShard) -> dict[str, np.ndarray]:
        """The shard's columns (its declared ones only), from the archive or its results file."""
        found = self.lookup(shard)
        if found.status == VALID:
            return dict(found.arrays)
        self.require_file(shard)
        return _read_columns(shard)


def _read_npz(path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _read_columns(shard: SampleShard) -> dict[str, np.ndarray]:
    """The declared columns (all if none are declared) of a shard's results file, checked
    against the sha256 its provenance sidecar records
    (:func:`~duelbench.provenance.integrity.read_verified`: a mismatch, a missing sidecar or an
    undecodable file raises :class:`~duelbench.provenance.integrity.ResultsFileError` naming it)."""
    columns = read_verified(shard.path, _read_npz)
    missing = sorted(set(shard.columns) - set(columns))
    if missing:
        raise ResultsFileError(f"{shard.path}: no column(s) {missing}; {FIX}")
    return {k: columns[k] for k in (shard.columns or columns)}


_SOURCES: dict[str | None, SampleSources] = {}


def sources() -> SampleSources:
    """This process's :class:`SampleSources` (archive from ``$DUELBENCH_ARCHIVE``)."""
    root = archive_root_from_env()
    key = os.path.abspath(root) if root else None
    if key not in _SOURCES:
        _SOURCES[key] = SampleSources(root)
    return _SOURCES[key]


def load_family(shards: Iterable[SampleShard]) -> dict[str, np.ndarray]:
    """The columns of a family's shards, concatenated in sample order, plus ``sample`` (index)."""
    shards = sorted(shards, key=lambda s: s.a)
    parts = [sources().arrays(s) for s in shards]
    if not parts:
        raise ValueError("no sample shards to load")
    names = sorted(parts[0])
    for s, part in zip(shards, parts):
        if sorted(part) != names:
            raise ValueError(f"{s.path}: columns {sorted(part)} differ from {names}; rebuild the family")
        rows = {len(v) for v in part.values()}
        if rows != {s.b - s.a}:
            raise ResultsFileError(f"{s.path}: holds {sorted(rows)} rows, expected {s.b - s.a} "
                                   f"(samples {s.a}-{s.b}); {FIX}")
    out = {name: np.concatenate([p[name] for p in parts]) for name in names}
    out["sample"] = np.concatenate([np.arange(s.a, s.b) for s in shards])
    return out


def archive_sample_shards(archive_root: str | os.PathLike, shards: Iterable[SampleShard]) -> list[dict]:
    """Put finished sample shards into the archive.  A shard whose sidecar shows other code,
    another lock file or other bytes than this process would key is refused (ValueError)."""
    archive = Archive(Path(archive_root))
    rows = []
    for shard in shards:
        reason = refusal(shard)
        if reason is not None:
            raise ValueError(reason)
        rows.append(archive.put(entry_path(shard), sample_key(shard), _read_columns(shard),
                                measured=run_measurement(shard.path)))
    return rows


def _other_code(shard: SampleShard, key: Mapping | None = None, sidecar: Mapping | None = None) -> list[str]:
    """Which of the code hash and lock hash recorded in the shard's sidecar (``sidecar``, or the
    one read from disk) differ from its key (``key``, or the one this process computes)."""
    key = key or sample_key(shard)
    sidecar = read_sidecar(shard.path)["content"] if sidecar is None else sidecar
    return code_mismatches(sidecar, "code_hash", key["code"], key["lock"])


def refusal(shard: SampleShard) -> str | None:
    """Why a finished sample shard cannot be archived by this checkout (other code, another
    requirements.lock, bytes that differ from its sidecar), or None when it can."""
    sidecar = read_sidecar(shard.path)["content"]
    if _other_code(shard, sidecar=sidecar):
        return (f"{shard.path}: computed by other code or another requirements.lock than this checkout's; "
                "rebuild it before archiving")
    if sidecar.get("output_sha256") != file_sha256(shard.path):
        return f"{shard.path}: bytes differ from the sha256 in its sidecar; rebuild it"
    return None

