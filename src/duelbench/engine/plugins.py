"""Plug-in algorithm files (``DUELBENCH_PLUGIN_PATH``) as the command line meets them.

The registry (:mod:`duelbench.algorithms.registry`) imports every plug-in file when it first
discovers the algorithms, and one file that fails to import stops the discovery of all others.
:func:`install` makes it skip such a file instead: the file is reported on stderr in one line
(file, line, error) and registers nothing, so the built-in algorithms and the other plug-ins still
run.  :func:`get_algorithm` is the registry's look-up with errors that name the plug-in behind an
unknown name (a file that failed to load, a file without ``ALGORITHM``); :func:`check_policy` and
:func:`policy_errors` turn a pure-Python policy that breaks the engine's calling convention into
one line naming the plug-in and the fix.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import linecache
import sys
import traceback
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from duelbench.algorithms import registry

#: The loader the registry calls for one plug-in file (replaced by :func:`install`).
_LOADER = "_load_plugin_file"


@dataclass(frozen=True)
class SkippedPlugin:
    """A plug-in file the registry could not use.

    Attributes
    ----------
    path : the file.
    reason : why: the error it raised on import (with its line), or that it defines no algorithm.
    names : algorithm names it may define (its file name, and ``name=`` strings in its source).
    """

    path: str
    reason: str
    names: frozenset[str]


_SKIPPED: dict[str, SkippedPlugin] = {}


def skipped() -> list[SkippedPlugin]:
    """The plug-in files skipped so far, in the order they were found."""
    return list(_SKIPPED.values())


def install() -> None:
    """Make the registry skip plug-in files that fail to import (each reported on stderr in one
    line) and remember those that define no algorithm. Idempotent; call it before the registry
    first discovers the algorithms."""
    load = getattr(registry, _LOADER)
    if getattr(load, "skips_broken_files", False):
        return

    def load_or_skip(path: Path) -> types.ModuleType:
        return _load_or_skip(load, Path(path))

    load_or_skip.skips_broken_files = True
    setattr(registry, _LOADER, load_or_skip)


def _load_or_skip(load, path: Path) -> types.ModuleType:
    """``load(path)``; an empty module (nothing to register) for a file that fails to import."""
    try:
        module = load(path)
    except Exception as exc:  # whatever the file raises on import: SyntaxError, ImportError, …
        sys.modules.pop(f"duelbench_plugins.{path.stem}", None)
        reason = f"failed to load ({_error_at(exc, path)})"
        _SKIPPED[str(path)] = SkippedPlugin(str(path), reason, _declared_names(path))
        print(f"duelbench: warning: plug-in {path} {reason}; skipped (fix it, or take it off "
              f"{registry.PLUGIN_PATH_ENV})", file=sys.stderr)
        return types.ModuleType(f"duelbench_plugins.{path.stem}")
    if getattr(module, "ALGORITHM", None) is None and not getattr(module, "ALGORITHMS", None):
        _SKIPPED[str(path)] = SkippedPlugin(str(path), "defines no ALGORITHM", _declared_names(path))
    return module


def _error_at(exc: Exception, path: Path) -> str:
    """``line N: ErrorType: message`` of an exception raised while importing ``path``."""
    line = None
    if isinstance(exc, SyntaxError) and exc.filename and Path(exc.filename) == path:
        line = exc.lineno
    else:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
        line = frames[-1].lineno if frames else None
    text = exc.msg if isinstance(exc, SyntaxError) else str(exc)
    where = f"line {line}: " if line else ""
    return f"{where}{type(exc).__name__}: {text}"


def _declared_names(path: Path) -> frozenset[str]:
    """The file name and, when the source parses, every ``name="..."`` keyword in it."""
    names = {path.stem}
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return frozenset(names)
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "name" and isinstance(node.value, ast.Constant):
            names.add(str(node.value.value))
    return frozenset(names)


def get_algorithm(name: str) -> registry.AlgorithmSpec:
    """The registered spec of ``name``; LookupError naming the plug-in file behind an unknown name
    (one that failed to load, or defines no ``ALGORITHM``) and the fix."""
    try:
        return registry.get_algorithm(name)
    except KeyError as exc:
        raise LookupError(_unknown(name, exc.args[0])) from None


def _unknown(name: str, message: str) -> str:
    for plugin in skipped():
        if name in plugin.names and plugin.reason == "defines no ALGORITHM":
            return (f"plug-in {plugin.path} defines no ALGORITHM: add a module-level "
                    f"ALGORITHM = AlgorithmSpec(name={name!r}, ...) (see duelbench.algorithms.registry)")
        if name in plugin.names:
            return f"algorithm {name!r} is in the plug-in {plugin.path}, which {plugin.reason}; fix the file"
    if skipped():
        message += "; plug-in files not registered: " + ", ".join(f"{p.path} ({p.reason})" for p in skipped())
    return message


def check_policy(spec: registry.AlgorithmSpec) -> None:
    """ValueError naming the plug-in when its policy class cannot be constructed the way the engine
    constructs it: ``Policy(K, horizon, rng, **params)`` with every declared parameter."""
    if spec.policy is None:
        return
    try:
        inspect.signature(spec.policy).bind(0, 0, None, **dict.fromkeys(spec.defaults, 0.0))
    except (TypeError, ValueError) as exc:
        wanted = ", ".join(["self", "K", "horizon", "rng", *spec.defaults])
        raise ValueError(f"plug-in {spec.module_file}: {spec.policy.__name__} cannot be constructed with the "
                         f"algorithm's parameters ({exc}); declare __init__({wanted})") from None


@contextlib.contextmanager
def policy_errors(spec: registry.AlgorithmSpec) -> Iterator[None]:
    """Turn a TypeError or ValueError that the engine's policy loop raises itself (not code of the
    policy) into a ValueError naming the plug-in and the calling convention it broke."""
    try:
        yield
    except (TypeError, ValueError) as exc:
        line = _engine_line(exc)
        if spec.policy is None or line is None:
            raise
        name = spec.policy.__name__
        if "policy_cls(" in line:
            fix = f"{name}(K, horizon, rng, **params) must accept every declared parameter"
        else:
            fix = f"{name}.select(t) must return a pair (i, j) of arm indices in 0..K-1, e.g. `return 0, 1`"
        raise ValueError(f"plug-in {spec.module_file}: {fix} ({exc})") from None


def _engine_line(exc: BaseException) -> str | None:
    """The source line of the policy loop where ``exc`` was raised, None when raised elsewhere."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None or tb.tb_frame.f_code.co_name != "run_policy":
        return None
    return linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
