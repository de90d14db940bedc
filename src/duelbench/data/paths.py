"""Where the dataset layer finds the checkout and its ``data/`` folder.

Resolution order of the checkout root (:func:`project_root`):

1. the environment variable ``DUELBENCH_ROOT`` (must name an existing folder);
2. the nearest ancestor of this package's source file that looks like the
   checkout (it holds ``data/matrices/`` and a ``pyproject.toml`` or
   ``Snakefile``) -- the normal case for an editable install;
3. the nearest such ancestor of the current working directory (e.g. a
   non-editable install used from inside a checkout);
4. the current working directory.

The data folder is ``$DUELBENCH_DATA_DIR`` if set, else ``<root>/data``; the
downloaded MSLR matrices live in its ``mslr/`` subfolder.  The transcribed
paper matrices are always read from ``<root>/data/matrices`` (they are part of
the checkout, not of a data download).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "ENV_ROOT",
    "ENV_DATA_DIR",
    "project_root",
    "data_dir",
    "matrices_dir",
    "mslr_dir",
    "display_path",
]

ENV_ROOT = "DUELBENCH_ROOT"
ENV_DATA_DIR = "DUELBENCH_DATA_DIR"


def _looks_like_checkout(d: Path) -> bool:
    return (d / "data" / "matrices").is_dir() and ((d / "pyproject.toml").is_file() or (d / "Snakefile").is_file())


def _search_up(start: Path) -> Path | None:
    for d in (start, *start.parents):
        if _looks_like_checkout(d):
            return d
    return None


def project_root() -> Path:
    """The checkout root (see the module docstring for the resolution order)."""
    env = os.environ.get(ENV_ROOT)
    if env:
        root = Path(env).expanduser()
        if not root.is_dir():
            raise NotADirectoryError(
                f"{ENV_ROOT}={env!r} is not an existing folder. Fix: point {ENV_ROOT} at the duelbench "
                "checkout (the folder holding pyproject.toml and data/), or unset it."
            )
        return root.resolve()
    found = _search_up(Path(__file__).resolve().parent)
    if found is None:
        found = _search_up(Path.cwd().resolve())
    return found if found is not None else Path.cwd().resolve()


def data_dir() -> Path:
    """The data folder: ``$DUELBENCH_DATA_DIR`` if set, else ``<root>/data``."""
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env).expanduser().resolve()
    return project_root() / "data"


def matrices_dir() -> Path:
    """Folder of the matrices transcribed from the papers: ``<root>/data/matrices``."""
    return project_root() / "data" / "matrices"


def mslr_dir() -> Path:
    """Default folder of the downloaded MSLR files: ``<data dir>/mslr``."""
    return data_dir() / "mslr"


def display_path(p: Path | str) -> str:
    """``p`` relative to the current directory when it lies below it, else absolute."""
    p = Path(p)
    try:
        return os.fspath(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return os.fspath(p.resolve())
