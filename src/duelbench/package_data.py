"""The repository's data files that an installed wheel carries, for use without the checkout.

The dataset layer reads the matrices printed in the papers and the dataset recipes from
``<checkout>/data/matrices``, ``data/generated`` and ``data/sampled``
(:mod:`duelbench.data.paths`). A wheel has no checkout beside it: its build copies these three
folders into the package, as ``duelbench/_checkout/data/`` (``setup.py``), and
:func:`install`, run by ``import duelbench``, makes the dataset layer read them there whenever
no checkout is found. The MSLR matrices are not packaged (``duelbench fetch-data`` downloads
them), nor is what only the workflow reads (published numbers, configuration, schemas).

With the packaged folder present (an installed wheel) and no checkout found (neither
``$DUELBENCH_ROOT``, nor a checkout above the package or the working directory):

* :func:`duelbench.data.paths.project_root` is :data:`ROOT`, the folder holding the packaged
  ``data/``;
* :func:`duelbench.data.paths.data_dir`, where the downloaded MSLR files go, stays what it was
  without a checkout: ``$DUELBENCH_DATA_DIR``, else ``./data`` of the working directory (never a
  folder inside the installed package).

Inside a checkout, with ``$DUELBENCH_ROOT`` set, or in an editable install (no packaged
folder), both functions answer exactly as before.

Decision: :mod:`duelbench.data.paths` is left as it is (its source enters the code hashes that
key the archived results), so :func:`install` wraps its two functions. The dataset modules bind
``project_root`` when they are imported; ``import duelbench`` runs :func:`install` before any of
them can be.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ROOT", "FOLDERS", "packaged", "install"]

#: The stand-in for the checkout root inside an installed package (holds ``data/``).
ROOT = Path(__file__).resolve().parent / "_checkout"
#: The folders of ``data/`` a wheel carries, with the file patterns copied from each.
FOLDERS = {"matrices": ("*.csv", "*.yaml", "README.md"), "generated": ("*.yaml",), "sampled": ("*.yaml",)}

_installed = False


def packaged() -> bool:
    """Whether this installation carries the packaged data folder (a wheel, not a checkout)."""
    return (ROOT / "data" / "matrices").is_dir()


def install() -> None:
    """Make :mod:`duelbench.data.paths` fall back to :data:`ROOT` when no checkout is found
    (once per process; nothing happens without the packaged folder)."""
    global _installed
    if _installed or not packaged():
        return
    from duelbench.data import paths

    checkout_root, checkout_data_dir = paths.project_root, paths.data_dir

    def project_root() -> Path:
        root = checkout_root()
        if os.environ.get(paths.ENV_ROOT) or paths._looks_like_checkout(root):
            return root
        return ROOT

    def data_dir() -> Path:
        if os.environ.get(paths.ENV_DATA_DIR) or project_root() != ROOT:
            return checkout_data_dir()
        return Path.cwd().resolve() / "data"

    for new, old in ((project_root, checkout_root), (data_dir, checkout_data_dir)):
        new.__doc__ = f"{old.__doc__}\n\n    Without a checkout: see :mod:`duelbench.package_data`."
        new.__wrapped__ = old
    paths.project_root, paths.data_dir = project_root, data_dir
    _installed = True
