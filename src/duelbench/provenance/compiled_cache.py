"""numba's on-disk cache, keyed by the hash of each compiled module's import closure.

numba (0.68) keys a cached function on its own source file only: after an edit to a function it
calls in *another* file (``duel`` in :mod:`duelbench.algorithms.kernels`, a helper in
:mod:`duelbench.stats`), a fresh process still loads the old machine code of every caller, with
the old callee compiled into it.  :class:`ClosureKeyedCacheLocator` puts each module's cache in a
folder named after :func:`duelbench.provenance.codehash.closure_hash` of that module, so any
change of behaviour in the closure selects a new, empty folder: the function is recompiled, never
loaded stale.  Versions of the code can share one ``NUMBA_CACHE_DIR`` without colliding (old
folders are only disk space; ``make clean`` removes them).

Inside that folder a package file's entries sit under its package's dotted name
(``duelbench.algorithms``), not under numba's hash of the folder's absolute path: two checkouts
of the same code (a worktree, a test's copy of the checkout) share the compiled code instead of
compiling it once each.  This is safe because the folder already names the closure and numba
checks the sha256 of the function's own file (its source stamp) before loading an entry.

The locator is a subclass of numba's ``UserProvidedCacheLocator``, put first in numba's list of
locators by :func:`install`; the packages holding compiled code (:mod:`duelbench.engine`,
:mod:`duelbench.stats`, :mod:`duelbench.algorithms`, :mod:`duelbench.bounds`) call it in their
``__init__``, so it is in place before any of their ``numba.njit(cache=True)`` decorators runs,
also for algorithm plug-ins (which import the engine first).  It applies to files of the package
and to files importing it (plug-ins); other code keeps numba's own locators.
"""

from __future__ import annotations

import os
from pathlib import Path

from numba.core import caching, config

from .codehash import PACKAGE, PACKAGE_ROOT, closure_hash, import_closure, module_name

#: Prefix of the per-closure folders inside the cache directory.
FOLDER_PREFIX = "closure-"


def _applies(py_file: str) -> bool:
    if not os.path.isfile(py_file):
        return False
    if module_name(py_file) is not None:
        return True
    return any(module_name(f) is not None for f in import_closure(py_file)[1:])


class ClosureKeyedCacheLocator(caching.UserProvidedCacheLocator):
    """Cache folder ``<base>/closure-<hash>/<numba's per-file subfolder>``.

    ``<base>`` is ``NUMBA_CACHE_DIR`` when set, else the ``__pycache__`` folder beside the
    source file (numba's in-tree default); ``<hash>`` is the first 16 hex digits of the closure
    hash of the function's source file.  The subfolder is the dotted name of the package holding
    the file for files of the package (the same in every checkout), numba's path-derived name for
    other files (plug-ins).
    """

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        base = config.CACHE_DIR or os.path.join(os.path.dirname(os.path.abspath(py_file)), "__pycache__")
        key = FOLDER_PREFIX + closure_hash(py_file)[:16]
        self._cache_path = os.path.join(base, key, self.get_suitable_cache_subpath(py_file))

    @classmethod
    def get_suitable_cache_subpath(cls, py_file):
        folder = Path(py_file).resolve().parent
        try:
            return ".".join(folder.relative_to(PACKAGE_ROOT.parent).parts)
        except ValueError:
            return super().get_suitable_cache_subpath(py_file)

    @classmethod
    def from_function(cls, py_func, py_file):
        if not _applies(py_file):
            return None
        # skip UserProvidedCacheLocator.from_function (it requires NUMBA_CACHE_DIR)
        return super(caching.UserProvidedCacheLocator, cls).from_function(py_func, py_file)


def install() -> None:
    """Put :class:`ClosureKeyedCacheLocator` first in numba's locator list (idempotent)."""
    classes = caching.CacheImpl._locator_classes
    if ClosureKeyedCacheLocator not in classes:
        classes.insert(0, ClosureKeyedCacheLocator)


def locator_of(dispatcher):
    """The cache locator numba chose for a ``numba.njit(cache=True)`` dispatcher (for tests)."""
    cache = getattr(dispatcher, "_cache", None)
    impl = getattr(cache, "_impl", None)
    return getattr(impl, "_locator", None)


__all__ = ["ClosureKeyedCacheLocator", "install", "locator_of", "FOLDER_PREFIX", "PACKAGE"]
