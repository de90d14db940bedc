"""Results files checked against their provenance sidecars before they are read.

Every shard the workflow computes (``results/<fidelity>/…/runs-<a>-<b>.npz``, sample shards
``…/samples-<a>-<b>.npz``) has a sidecar whose ``content.output_sha256`` is the sha256 of the
file's bytes when it was written.  A file that no longer matches it (edited, truncated, copied
from elsewhere) or that has no sidecar is never read:

* when the workflow is planned, :func:`set_aside` renames such a file and its sidecar to
  ``<name>.rejected`` (one warning line naming it), so the workflow recomputes it;
* a reader that meets one later (:func:`read_verified`) raises :class:`ResultsFileError`
  naming the file and the fix, as it does for a file that cannot be decoded.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Callable
from typing import TypeVar

from .sidecar import file_sha256, read_sidecar, sidecar_path

#: Suffix of a results file (and its sidecar) set aside by :func:`set_aside`.
REJECTED = ".rejected"
#: What a user does about a bad results file.
FIX = "delete it and its sidecar (.json) to recompute it with the workflow"
#: Exceptions of a reader meeting a damaged file (numpy's npz reader raises all of these).
_UNREADABLE = (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile)

T = TypeVar("T")


class ResultsFileError(ValueError):
    """A results file that does not match its provenance sidecar or cannot be decoded."""


def mismatch(path: str | os.PathLike) -> str | None:
    """Why the results file ``path`` cannot be trusted, or ``None`` when it matches its sidecar.

    Parameters
    ----------
    path : str or path-like
        A results file with a provenance sidecar ``<path>.json``.

    Returns
    -------
    str or None
        ``"no such file"``, ``"no provenance sidecar <path>.json"``, an unreadable sidecar, a
        sidecar without ``output_sha256``, or bytes that differ from it; ``None`` otherwise.
    """
    side = sidecar_path(path)
    if not os.path.isfile(path):
        return "no such file"
    if not os.path.isfile(side):
        return f"no provenance sidecar {side}"
    try:
        recorded = read_sidecar(path)["content"]["output_sha256"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"unreadable provenance sidecar {side} ({exc})"
    if not isinstance(recorded, str):
        return f"its sidecar {side} records no output_sha256"
    if file_sha256(path) != recorded:
        return f"its bytes differ from the output_sha256 recorded in {side}"
    return None


def verify(path: str | os.PathLike) -> None:
    """Raise :class:`ResultsFileError` (naming ``path`` and the fix) unless it matches its sidecar."""
    problem = mismatch(path)
    if problem is not None:
        raise ResultsFileError(f"{os.fspath(path)}: {problem}; {FIX}")


def read_verified(path: str | os.PathLike, read: Callable[[str | os.PathLike], T]) -> T:
    """``read(path)`` after :func:`verify`; a decoding error is re-raised as
    :class:`ResultsFileError` naming the file and the fix.

    Parameters
    ----------
    path : str or path-like
        The results file.
    read : callable
        Reads the file (e.g. ``SimulationResult.from_npz``); it must not keep the file open.
    """
    verify(path)
    try:
        return read(path)
    except _UNREADABLE as exc:
        raise ResultsFileError(f"{os.fspath(path)}: unreadable ({type(exc).__name__}: {exc}); {FIX}") from exc


def set_aside(path: str | os.PathLike) -> str | None:
    """Rename a results file that does not match its sidecar, and the sidecar, to ``*.rejected``.

    Returns
    -------
    str or None
        The reason it was set aside (see :func:`mismatch`), or ``None`` when the file matches
        its sidecar or does not exist (nothing is moved).
    """
    problem = mismatch(path)
    if problem is None or problem == "no such file":
        return None
    move_aside(path)
    return problem


def move_aside(path: str | os.PathLike) -> None:
    """Rename a results file and its sidecar to ``*.rejected`` (those that exist)."""
    for file in (os.fspath(path), sidecar_path(path)):
        if os.path.isfile(file):
            os.replace(file, file + REJECTED)
