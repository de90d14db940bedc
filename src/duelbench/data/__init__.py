"""Dataset layer: preference matrices printed in the papers and the MSLR matrices.

* :mod:`.registry` -- :func:`load_matrix`, :func:`list_datasets`, :data:`DATASETS`.
* :mod:`.paper_matrices` -- the matrices transcribed from Komiyama et al.
  (ICML 2016), Tables 2 and 3 (paper 000, lines 137-143 and 381-445), stored
  in ``data/matrices/`` with provenance YAML files.
* :mod:`.mslr` -- the 136x136 MSLR matrices (Zoghi et al., NIPS 2015,
  Appendix B): :func:`fetch` / :func:`ensure` with SHA-256 checks, mirror
  folder support (``DUELBENCH_DATA_MIRROR``) and the ``fetch-data`` command
  (:func:`main_fetch`).

The names below are imported lazily, so that ``python -m duelbench.data.mslr``
runs the module cleanly.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "load_matrix": "registry",
    "list_datasets": "registry",
    "dataset_info": "registry",
    "required_files": "registry",
    "clear_cache": "registry",
    "DATASETS": "registry",
    "DatasetInfo": "registry",
    "fetch": "mslr",
    "ensure": "mslr",
    "main_fetch": "mslr",
    "DataError": "errors",
    "DataUnavailableError": "errors",
    "ChecksumMismatchError": "errors",
    "InvalidDataFileError": "errors",
    "UnknownDatasetError": "errors",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'duelbench.data' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
