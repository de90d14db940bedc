"""Provenance sidecars: a JSON file next to every generated output.

For an output ``path`` the sidecar is ``path + ".json"``. It records what the output depends on
(code commit, a hash of the relevant configuration, seeds, package versions, sha256 of the
inputs) and how it was made (timestamps, wall and CPU time, platform).

The sidecar has two sections:

``content``
    Fields that depend only on what was computed, never on the machine or the moment: two
    builds of the same output from the same commit, configuration and seeds on different hosts
    give the same ``content`` (``content_hash`` is the sha256 of its canonical JSON). The
    output's own sha256 lives here too.
``run``
    Host- and time-dependent fields: UTC timestamps, wall/CPU seconds, platform. No host name
    or user name is recorded.

Writes are atomic (temporary file in the same folder, then :func:`os.replace`), so a killed
job never leaves a truncated sidecar behind.
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import importlib.metadata
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

SCHEMA = "duelbench.provenance/1"
SUFFIX = ".json"

#: Packages whose versions are recorded in every sidecar.
PACKAGES = ("duelbench", "numpy", "numba", "scipy")


def sidecar_path(output_path: str | os.PathLike) -> str:
    """The sidecar of ``output_path``: the same path with ``.json`` appended."""
    return os.fspath(output_path) + SUFFIX


def _jsonable(obj: Any) -> Any:
    """Convert ``obj`` into plain JSON types (numpy scalars/arrays, tuples, sets, paths)."""
    if isinstance(obj, Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted((_jsonable(v) for v in obj), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else repr(obj)
    if obj is None or isinstance(obj, (str, int, bool)):
        return obj
    # numpy scalars and arrays, without importing numpy here
    if hasattr(obj, "tolist"):
        return _jsonable(obj.tolist())
    if hasattr(obj, "item"):
        return _jsonable(obj.item())
    return str(obj)


def canonical_json(obj: Any) -> str:
    """Canonical JSON text: sorted keys, no whitespace, ASCII only, non-finite floats as strings."""
    return json.dumps(_jsonable(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def config_hash(config: Any) -> str:
    """sha256 (hex) of the canonical JSON of ``config``."""
    return hashlib.sha256(canonical_json(config).encode("ascii")).hexdigest()


def file_sha256(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """sha256 (hex) of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def _package_root() -> Path:
    import duelbench  # the package imports this module: resolved at call time

    return Path(duelbench.__file__).resolve().parent


#: Top-level folders of the checkout that hold build *outputs* (the committed paper-fidelity
#: figures).  A paper build rewrites tracked files there while it runs, so they are left out of
#: the ``dirty`` test: ``dirty`` means "the code or inputs differ from the commit", never "the
#: build has already written some of its outputs".
OUTPUT_FOLDERS = ("figures",)


def _git_state(cwd: str) -> tuple[str, bool | None]:
    """(commit, dirty) of the git checkout containing ``cwd``; ("unknown", None) without git.

    ``dirty``: tracked files outside :data:`OUTPUT_FOLDERS` differ from ``HEAD`` (untracked files
    are ignored).  Not cached: a long build's processes must see edits made while it runs.
    """
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=30, check=True
        ).stdout.strip()
        status = subprocess.run(  # ":(top)": pathspecs relative to the checkout root, not cwd
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ":(top)",
             *(f":(top,exclude){d}" for d in OUTPUT_FOLDERS)],
            cwd=cwd, capture_output=True, text=True, timeout=60, check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown", None
    if not commit:
        return "unknown", None
    return commit, bool(status.strip())


def code_version() -> dict[str, Any]:
    """The commit of the checkout holding the ``duelbench`` sources and whether it has local edits.

    ``{"commit": "unknown", "dirty": None}`` when the package is not inside a git checkout (e.g.
    an installed wheel) or git is unavailable.
    """
    commit, dirty = _git_state(str(_package_root()))
    return {"commit": commit, "dirty": dirty}


@functools.lru_cache(maxsize=None)
def package_versions() -> dict[str, str]:
    """Versions of Python and of the packages in :data:`PACKAGES` ("not installed" if absent)."""
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def _utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def describe_inputs(inputs: Iterable[str | os.PathLike], *, hash_inputs: bool = True) -> list[dict[str, Any]]:
    """One entry per input file: path (as given), size in bytes, sha256 (if ``hash_inputs``)."""
    out = []
    for p in inputs:
        p = os.fspath(p)
        entry: dict[str, Any] = {"path": p}
        if os.path.isfile(p):
            entry["bytes"] = os.path.getsize(p)
            if hash_inputs:
                entry["sha256"] = file_sha256(p)
        else:
            entry["missing"] = True
        out.append(entry)
    return out


def _read_umask() -> int:
    """This process's umask (reading it means setting it, so it is read once, at import)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: The permissions of a file this package writes: those ``open`` gives a new file (``0o666``
#: less the umask), not the owner-only ``0o600`` of the temporary file it is written through,
#: so outputs stay readable by whoever may read the folder (a shared cluster project folder).
FILE_MODE = 0o666 & ~_read_umask()


def atomic_write(path: str | os.PathLike, write, mode: str = "wb", **open_kw) -> None:
    """Create ``path`` atomically: ``write(fh)`` fills a temporary file in the same folder, which
    then replaces ``path`` (a killed job never leaves a truncated output; the folder is created).
    The file gets :data:`FILE_MODE`, as if ``open`` had created it.
    """
    path = os.fspath(path)
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, mode, **open_kw) as f:
            os.fchmod(f.fileno(), FILE_MODE)
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_write`)."""
    atomic_write(path, lambda f: f.write(text), "w", encoding="utf-8")


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (:func:`atomic_write`)."""
    atomic_write(path, lambda f: f.write(data))


def build_record(
    output_path: str | os.PathLike,
    *,
    inputs: Iterable[str | os.PathLike] = (),
    config: Any = None,
    seeds: Any = None,
    extra: Mapping[str, Any] | None = None,
    wall_time: float | None = None,
    cpu_time: float | None = None,
    started: str | None = None,
    hash_inputs: bool = True,
    run_info: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The sidecar record of ``output_path`` (see the module docstring); nothing is written."""
    output_path = os.fspath(output_path)
    content: dict[str, Any] = {
        "output": output_path,
        "output_sha256": file_sha256(output_path) if os.path.isfile(output_path) else None,
        "code": code_version(),
        "config_hash": config_hash(config) if config is not None else None,
        "config": _jsonable(config),
        "seeds": _jsonable(seeds),
        "versions": package_versions(),
        "inputs": describe_inputs(inputs, hash_inputs=hash_inputs),
        "extra": _jsonable(dict(extra or {})),
    }
    run = {
        "started": started,
        "finished": _utc_now(),
        "wall_time_s": None if wall_time is None else float(wall_time),
        "cpu_time_s": None if cpu_time is None else float(cpu_time),
        "platform": {
            "system": platform.system(),
            "machine": platform.machine(),
            "python_implementation": platform.python_implementation(),
        },
        "argv0": os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else None,
        "info": _jsonable(dict(run_info or {})),
    }
    return {
        "schema": SCHEMA,
        "content_hash": hashlib.sha256(canonical_json(content).encode("ascii")).hexdigest(),
        "content": content,
        "run": run,
    }


def write_sidecar(output_path: str | os.PathLike, **fields: Any) -> str:
    """Write the provenance sidecar of ``output_path`` atomically and return its path; ``fields``
    are the keyword arguments of :func:`build_record`.

    Parameters
    ----------
    output_path : the generated file (write it first: its sha256 is recorded).
    inputs : files the output was computed from (sha256 recorded if ``hash_inputs``).
    config : the configuration the output depends on (hashed and stored verbatim).
    seeds : the seed(s) used, any JSON-able value.
    extra : further JSON-able fields that describe the content (e.g. run range, parameters);
        they are part of ``content`` and its hash, so nothing time- or host-dependent.
    wall_time, cpu_time : seconds spent producing the output.
    started : ISO timestamp of the start of the work (see :func:`Timer`).
    hash_inputs : record the sha256 of each input file (else only path and size).
    run_info : further time- or host-dependent fields (throughput, cache folder, …), stored
        under ``run.info``.
    """
    record = build_record(output_path, **fields)
    path = sidecar_path(output_path)
    atomic_write_text(path, json.dumps(record, indent=2, sort_keys=True, allow_nan=False) + "\n")
    return path


def read_sidecar(output_path: str | os.PathLike) -> dict[str, Any]:
    """Load the sidecar of ``output_path``."""
    with open(sidecar_path(output_path), encoding="utf-8") as f:
        return json.load(f)


def run_measurement(output_path: str | os.PathLike) -> dict[str, Any] | None:
    """What the job that wrote ``output_path`` measured, as the results archive keeps it
    (:mod:`duelbench.archive.store`): ``cpu_s`` and ``wall_s`` to 4 significant digits and
    ``finished``; None without a sidecar or a recorded CPU time."""
    try:
        run = read_sidecar(output_path).get("run", {})
    except (FileNotFoundError, ValueError):
        return None
    if run.get("cpu_time_s") is None:
        return None
    out = {"cpu_s": float(f"{run['cpu_time_s']:.4g}")}
    if run.get("wall_time_s") is not None:
        out["wall_s"] = float(f"{run['wall_time_s']:.4g}")
    if run.get("finished"):
        out["finished"] = run["finished"]
    return out


def code_mismatches(content: Mapping[str, Any], code_field: str, code: str, lock: str) -> list[str]:
    """Which of ``code_field`` and ``lock_hash`` in a sidecar's ``content["extra"]`` differ from
    ``code`` and ``lock`` (this checkout's code hash and ``requirements.lock`` hash); empty when the
    output was computed by this code under this lock file.

    ``code_field`` is ``"source_hash"`` for simulated shards (the algorithm's code) and
    ``"code_hash"`` for sample shards (the sample function's import closure).
    """
    extra = content.get("extra", {})
    return [field for field, want in ((code_field, code), ("lock_hash", lock)) if extra.get(field) != want]


class Timer:
    """Context manager measuring wall and CPU time of a block.

    >>> with Timer() as t:
    ...     pass
    >>> t.wall >= 0 and t.cpu >= 0
    True
    """

    def __enter__(self) -> "Timer":
        self.started = _utc_now()
        self._wall0 = time.perf_counter()
        self._cpu0 = time.process_time()
        self.wall = self.cpu = 0.0
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.perf_counter() - self._wall0
        self.cpu = time.process_time() - self._cpu0

    def as_kwargs(self) -> dict[str, Any]:
        """``wall_time``, ``cpu_time`` and ``started`` for :func:`write_sidecar`."""
        return {"wall_time": self.wall, "cpu_time": self.cpu, "started": self.started}
