"""Dataset layer: preference matrices printed in the papers and the MSLR matrices.

* :mod:`.registry` -- :func:`load_matrix`, :func:`list_datasets`, :data:`DATASETS`.
* :mod:`.paper_matrices` -- the matrices transcribed from Komiyama et al.
  (ICML 2016), Tables 2 and 3 (paper 000, lines 137-143 and 381-445), stored
  in ``data/matrices/`` with provenance YAML files.
* :mod:`.mslr` -- the 136x136 MSLR matrices (Zoghi et al., NIPS 2015,
  Appendix B): :func:`fetch` / :func:`ensure` with SHA-256 checks, mirror
  folder support (``DUELBENCH_DATA_MIRROR``) and the ``fetch-data`` command
  (:func:`main_fetch`).
"""

from .errors import ChecksumMismatchError, DataError, DataUnavailableError, InvalidDataFileError, UnknownDatasetError
from .mslr import ensure, fetch, main_fetch
from .registry import DATASETS, DatasetInfo, dataset_info, list_datasets, load_matrix, required_files

__all__ = [
    "load_matrix",
    "list_datasets",
    "dataset_info",
    "required_files",
    "DATASETS",
    "DatasetInfo",
    "fetch",
    "ensure",
    "main_fetch",
    "DataError",
    "DataUnavailableError",
    "ChecksumMismatchError",
    "InvalidDataFileError",
    "UnknownDatasetError",
]
