"""Hash of the code a result depends on: the normalised source of a module's import closure.

One definition serves every cache that must follow code edits: the compiled-function cache
(:mod:`duelbench.provenance.compiled_cache`), the results archive keys and the workflow's rerun
triggers.

* **Import closure.** The closure of a module is the module and, recursively, every
  ``duelbench`` module it imports, read statically from the source (``import duelbench.x``,
  ``from duelbench.x import y``, relative imports, also inside functions). ``from pkg import name``
  adds the submodule ``pkg.name`` when there is one, else ``pkg/__init__.py`` (where ``name`` is
  defined). Third-party imports (numpy, numba, ...) are not followed: their versions are pinned
  by ``requirements.lock``, whose hash the results archive keys on separately. A file outside
  the package (an algorithm plug-in) is the root of its own closure.
* **Normalised source.** ``ast.unparse`` of the module's syntax tree with docstrings removed, so
  comments, docstrings, blank lines and formatting do not change the hash; everything that can
  change behaviour does.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import sys
from pathlib import Path

#: The root folder of the ``duelbench`` package (``src/duelbench``).
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
PACKAGE = PACKAGE_ROOT.name


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _analyse(text: str, path: str) -> tuple[str, tuple[tuple[str, str | None, int], ...]]:
    """(normalised source, imports) of a module's source text."""
    tree = ast.parse(text, filename=path)
    imports = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports.extend((alias.name, None, 0) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imports.extend((node.module or "", alias.name, node.level) for alias in node.names)
    normalised = ast.unparse(_strip_docstrings(tree))
    return normalised, tuple(imports)


def _store() -> Path:
    """Folder of the on-disk analysis cache: ``codehash-py<major><minor>`` in ``NUMBA_CACHE_DIR``
    when set, else in the package's ``__pycache__`` (where numba caches by default)."""
    base = os.environ.get("NUMBA_CACHE_DIR") or str(PACKAGE_ROOT / "__pycache__")
    return Path(base) / f"codehash-py{sys.version_info[0]}{sys.version_info[1]}"


@functools.lru_cache(maxsize=None)
def _parsed(path: str, mtime_ns: int, size: int) -> tuple[str, tuple[tuple[str, str | None, int], ...]]:
    """(normalised source, imports) of a file; memoised on (path, mtime, size) in the process and
    on the sha256 of the file's bytes on disk (:func:`_store`).

    The disk cache is content-addressed: an entry is the analysis of exactly those bytes by this
    Python's ``ast`` (the folder names the version), so it can never be stale; an unreadable or
    unwritable entry is recomputed (and a read-only location simply goes uncached).  It saves each
    new process (every shard job) from parsing the closure again.
    """
    data = Path(path).read_bytes()
    entry = _store() / f"{hashlib.sha256(data).hexdigest()}.json"
    try:
        cached = json.loads(entry.read_text(encoding="utf-8"))
        return cached["normalised"], tuple((m, n, int(lv)) for m, n, lv in cached["imports"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    normalised, imports = _analyse(data.decode("utf-8"), path)
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        tmp = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"normalised": normalised, "imports": imports}), encoding="utf-8")
        os.replace(tmp, entry)  # atomic: a concurrent reader sees all of an entry or none
    except OSError:
        pass
    return normalised, imports


def _parse(path: Path):
    st = os.stat(path)
    return _parsed(str(path), st.st_mtime_ns, st.st_size)


def module_file(name: str) -> Path | None:
    """Source file of the package module ``name`` (``duelbench.a.b``), or None if not one."""
    parts = name.split(".")
    if parts[0] != PACKAGE:
        return None
    base = PACKAGE_ROOT.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def module_name(path: Path) -> str | None:
    """Dotted name of a file inside the package, or None for a file outside it."""
    return _module_name(str(path))


@functools.lru_cache(maxsize=None)
def _module_name(path: str) -> str | None:
    try:
        rel = Path(path).resolve().relative_to(PACKAGE_ROOT)
    except ValueError:
        return None
    parts = [PACKAGE, *rel.with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(importer: Path, module: str, name: str | None, level: int) -> list[Path]:
    """Package files that one import statement entry of ``importer`` refers to."""
    if level:
        own = module_name(importer)
        if own is None:
            return []
        pkg = own.split(".")
        if importer.name != "__init__.py":
            pkg = pkg[:-1]
        pkg = pkg[: len(pkg) - (level - 1)]
        module = ".".join(pkg + ([module] if module else []))
    if name is not None:
        sub = module_file(f"{module}.{name}")
        if sub is not None:
            return [sub]
    own_file = module_file(module)
    return [own_file] if own_file is not None else []


#: Closures computed in this process: (paths, exclude) -> (files, their stat signature).
_CLOSURES: dict[tuple, tuple[tuple[Path, ...], tuple]] = {}


def _signature(files) -> tuple | None:
    """(mtime_ns, size) of each file, None if one is gone."""
    try:
        return tuple((st.st_mtime_ns, st.st_size) for st in map(os.stat, files))
    except OSError:
        return None


def import_closure(*paths: str | os.PathLike, exclude: tuple[str, ...] = ()) -> list[Path]:
    """The files of the import closure of the source files ``paths`` (those first, in the order
    given, then the others sorted); modules in the packages ``exclude`` (dotted names) are
    neither included nor followed.

    Memoised per process and revalidated on every call: the closure is recomputed when any of
    its files changed (mtime or size) or is gone, so an edit that adds or drops an import is
    followed.  (A module file created after the first call is not looked for until a file of
    the closure changes: the process's own imports would not see it either.)
    """
    key = (tuple(str(p) for p in paths), tuple(exclude))
    hit = _CLOSURES.get(key)
    if hit is not None and _signature(hit[0]) == hit[1]:
        return list(hit[0])
    files = tuple(_closure(paths, exclude))
    signature = _signature(files)
    if signature is not None:  # a file vanished meanwhile: nothing to revalidate against
        _CLOSURES[key] = (files, signature)
    return list(files)


def _closure(paths, exclude) -> list[Path]:
    roots = list(dict.fromkeys(Path(p).resolve() for p in paths))
    seen = set(roots)
    todo = list(roots)
    while todo:
        current = todo.pop()
        for module, name, level in _parse(current)[1]:
            for dep in _resolve(current, module, name, level):
                dep = dep.resolve()
                if _excluded(dep, exclude):
                    continue
                if dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
    return [*roots, *sorted(seen - set(roots))]


def _excluded(path: Path, exclude: tuple[str, ...]) -> bool:
    name = module_name(path)
    return name is not None and any(name == e or name.startswith(e + ".") for e in exclude)


def _label(path: Path) -> str:
    return module_name(path) or path.name


def closure_hash(*paths: str | os.PathLike, exclude: tuple[str, ...] = ()) -> str:
    """sha256 (hex) of the normalised sources of :func:`import_closure` ``(*paths, exclude=...)``.

    Each file enters with its module name (a plug-in with its file name), so moving code between
    modules changes the hash.
    """
    h = hashlib.sha256()
    for f in import_closure(*paths, exclude=exclude):
        h.update(_label(f).encode("utf-8") + b"\0")
        h.update(_parse(f)[0].encode("utf-8") + b"\0")
    return h.hexdigest()


#: Packages whose code cannot change a computed number: hashing, sidecars, the compiled cache's
#: location.  Left out of the code hashes that decide reruns and archive validity.
PROVENANCE = ("duelbench.provenance",)


def module_closure_hash(name: str, exclude: tuple[str, ...] = PROVENANCE) -> str:
    """:func:`closure_hash` of the package module ``name`` (e.g. ``"duelbench.algorithms.rucb"``),
    without the packages ``exclude`` (default: :data:`PROVENANCE`)."""
    path = module_file(name)
    if path is None:
        raise ValueError(f"{name!r} is not a module of the {PACKAGE} package")
    return closure_hash(path, exclude=exclude)


#: The lock file pinning every package version (numba or numpy updates can change random streams).
LOCK_FILE = "requirements.lock"


def lock_hash() -> str:
    """sha256 (hex) of the checkout's ``requirements.lock``; ``"no-lock-file"`` outside a checkout."""
    path = PACKAGE_ROOT.parent.parent / LOCK_FILE
    if not path.is_file():
        return "no-lock-file"
    return hashlib.sha256(path.read_bytes()).hexdigest()
