"""Shared test set-up and fixtures.

At import (before any test module imports numba) the environment is fixed for repeatable,
single-threaded runs:

- ``NUMBA_CACHE_DIR`` defaults to ``<checkout>/.numba_cache``, so compiled functions are reused
  across test runs and shared with the workflow's warm-up rule;
- BLAS/OpenMP/numba thread pools default to one thread (tests compare numbers bit for bit, and
  CI has two cores);
- matplotlib draws off-screen.

Values already set in the environment win, so ``NUMBA_CACHE_DIR=... pytest`` still works.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parent.parent

_ENV_DEFAULTS = {
    "NUMBA_CACHE_DIR": str(CHECKOUT / ".numba_cache"),
    "NUMBA_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "MPLBACKEND": "Agg",
}
for _key, _value in _ENV_DEFAULTS.items():
    os.environ.setdefault(_key, _value)

if "numba" in sys.modules:  # imported early (e.g. by a plugin): make it see the settings
    import numba.core.config

    numba.core.config.reload_config()

#: Environment variable naming a folder with the MSLR preference matrices (``*_PMat.npz``).
DATA_MIRROR_ENV = "DUELBENCH_DATA_MIRROR"
#: Where a checkout looks for that folder when the variable is not set.
DEFAULT_DATA_MIRROR = CHECKOUT.parent / "shared" / "data" / "mslr"


@pytest.fixture(scope="session")
def checkout() -> Path:
    """Root of the repository checkout (the folder holding ``pyproject.toml``)."""
    return CHECKOUT


@pytest.fixture(scope="session")
def mslr_mirror() -> Path:
    """Folder holding the MSLR ``*_PMat.npz`` files.

    Taken from ``$DUELBENCH_DATA_MIRROR`` (an error if that names no folder), else
    ``<checkout>/../shared/data/mslr``; tests that need it are skipped when neither exists.
    """
    named = os.environ.get(DATA_MIRROR_ENV)
    if named:
        path = Path(named).expanduser().resolve()
        if not path.is_dir():
            pytest.fail(f"{DATA_MIRROR_ENV}={named!r} is not a directory", pytrace=False)
        return path
    if DEFAULT_DATA_MIRROR.is_dir():
        return DEFAULT_DATA_MIRROR.resolve()
    pytest.skip(
        f"MSLR data not available: set {DATA_MIRROR_ENV} to a folder with the *_PMat.npz files "
        f"(or place them in {DEFAULT_DATA_MIRROR})"
    )


@pytest.fixture(scope="session")
def mslr_data_dir(mslr_mirror, tmp_path_factory) -> Path:
    """A data folder (``$DUELBENCH_DATA_DIR``) whose ``mslr/`` links the mirror's matrices: the
    sampled datasets are derived from them and the archive checks their sha256."""
    root = tmp_path_factory.mktemp("data")
    (root / "mslr").mkdir()
    for f in mslr_mirror.glob("*.npz"):
        (root / "mslr" / f.name).symlink_to(f)
    return root


def pytest_addoption(parser):
    parser.addoption("--store-durations", action="store_true", default=False,
                     help="record the seconds of each test file in tests/data/file_durations.json "
                          "(the order in which the workers take the files, tests/_file_order.py)")


def pytest_configure(config):
    from _file_order import DurationRecorder

    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False  # keep the heaviest-first order of the collection
    if config.getoption("--store-durations") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(DurationRecorder(), "duelbench-file-durations")


def pytest_collection_modifyitems(config, items):
    from _file_order import heaviest_first

    heaviest_first(items)
