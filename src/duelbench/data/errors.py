"""Exceptions of the dataset layer.

Every message names the file or key involved and says how to fix the problem.
"""

from __future__ import annotations

__all__ = [
    "DataError",
    "DataUnavailableError",
    "ChecksumMismatchError",
    "InvalidDataFileError",
    "UnknownDatasetError",
]


class DataError(Exception):
    """Base class of all dataset-layer errors."""


class DataUnavailableError(DataError):
    """A data file is neither present locally, nor in a mirror, nor downloadable.

    The message lists what was tried and the three ways to provide the file
    (mirror folder, manual placement, fetch command).
    """


class ChecksumMismatchError(DataError):
    """A copied or downloaded file does not have the pinned SHA-256.

    The message names the file, the expected and the actual hash, and the fix.
    No partial or unverified file is left behind when this is raised.
    """


class InvalidDataFileError(DataError, ValueError):
    """A data file exists but its content is malformed (wrong key, shape, token...)."""


class UnknownDatasetError(DataError, LookupError):
    """A dataset name is not in the registry; the message lists the valid names."""

    def __str__(self) -> str:  # LookupError/KeyError would repr() the message
        return str(self.args[0]) if self.args else ""
