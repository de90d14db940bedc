"""Algorithm registry: names → implementations, default parameters and code identity.

An algorithm is registered by defining a module-level ``ALGORITHM = AlgorithmSpec(...)`` in a
module that the registry discovers:

1. every module of the package :mod:`duelbench.algorithms` (the built-in algorithms);
2. every ``*.py`` file in the folders listed in the environment variable
   ``DUELBENCH_PLUGIN_PATH`` (``os.pathsep``-separated) — a new algorithm is one file;
3. every module named by an entry point of the group ``duelbench.algorithms`` (for
   installable packages).

An implementation is one of: compiled step kernels ``steps=(init, select, update)``, run by the
engine's shared loop (:mod:`duelbench.engine.loop`); a compiled ``run`` kernel with a loop of
its own (block algorithms that commit to a pair for many steps); or a pure-Python
:class:`Policy` class run by :mod:`duelbench.engine.python_loop`.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import json
import os
import pkgutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

import numpy as np

PLUGIN_PATH_ENV = "DUELBENCH_PLUGIN_PATH"
ENTRY_POINT_GROUP = "duelbench.algorithms"


class Policy(Protocol):
    """A pure-Python dueling-bandit algorithm (for new algorithms before they are compiled).

    The engine constructs ``Policy(K, horizon, rng, **params)`` once per run, then for
    t = 1..horizon calls ``select(t)`` → ``(i, j)`` and ``update(i, j, i_won, t)``.  ``rng`` is
    the run's ``numpy.random.Generator``; a policy must draw all its randomness from it.
    """

    def select(self, t: int) -> tuple[int, int]: ...

    def update(self, i: int, j: int, i_won: bool, t: int) -> None: ...


@dataclass(frozen=True)
class AlgorithmSpec:
    """Everything the engine and the workflow need to know about one algorithm.

    Attributes
    ----------
    name : registry name (lower case, ``[a-z0-9_]``).
    title : label for legends ("RUCB", "D-TS", …).
    reference : the paper and algorithm number implemented.
    defaults : parameter name → default value (floats); order = order of the kernel's
        ``params`` array.
    steps : compiled kernels ``(init, select, update)``: ``init(K, params) -> state``,
        ``select(state, t, rng) -> (i, j)``, ``update(state, i, j, i_won, t)``, run by
        :func:`duelbench.engine.loop.run_steps`.  ``init`` allocates the state; ``select``
        and ``update`` must not allocate (no ``np.zeros``, ``np.sort``, ``a.sort()``, slice
        copies ``a[:n] = b[:n]``, lists), because the loop that calls them is compiled
        without reference counting; see :mod:`duelbench.engine.loop`.
    step_allocates : declare that ``select``/``update`` allocate; the loop then keeps numba's
        reference counting (correct, but several times slower per step).
    run : compiled kernel with its own loop, ``run(P, regret, checkpoints, params, rng,
        record_pairs)`` → ``(out, pairs)`` (see :mod:`duelbench.algorithms.kernels`).
    policy : a :class:`Policy` class (pure Python).
    needs_horizon : the algorithm needs T in advance; the engine then runs it once per
        horizon point (``horizons=`` mode).
    validate : ``validate(params: dict) -> None``, raising ``ValueError`` on bad values.
    module_file : source file (the hash of its import closure becomes part of the cache key of
        result shards, see :func:`source_hash`).
    """

    name: str
    title: str
    reference: str
    defaults: dict[str, float]
    steps: tuple[Callable, Callable, Callable] | None = None
    run: Callable | None = None
    policy: type | None = None
    needs_horizon: bool = False
    step_allocates: bool = False
    validate: Callable[[dict], None] | None = None
    module_file: str = ""

    def __post_init__(self):
        if sum(x is not None for x in (self.steps, self.run, self.policy)) != 1:
            raise ValueError(f"algorithm {self.name!r}: give exactly one of steps=, run= or policy=")
        if self.steps is not None and len(self.steps) != 3:
            raise ValueError(f"algorithm {self.name!r}: steps= is the triple (init, select, update)")

    @property
    def compiled(self) -> bool:
        """Runs as compiled code (step kernels or its own ``run`` loop), not as a Python policy."""
        return self.policy is None


def alpha_above_half(name: str, source: str) -> Callable[[dict], None]:
    """Validator for the exploration parameter of RUCB-style bounds: ``alpha > 1/2`` (``source``
    names the theorem that needs it)."""

    def validate(params: dict) -> None:
        if not params["alpha"] > 0.5:
            raise ValueError(f"{name}: alpha must be > 1/2 ({source}), got {params['alpha']}")

    return validate


_REGISTRY: dict[str, AlgorithmSpec] = {}
_DISCOVERED = False


def register(spec: AlgorithmSpec, *, replace: bool = False) -> AlgorithmSpec:
    """Add ``spec`` to the registry (error on a duplicate name unless ``replace``)."""
    if not spec.name or not all(c.isalnum() or c == "_" for c in spec.name) or spec.name != spec.name.lower():
        raise ValueError(f"invalid algorithm name {spec.name!r}: use lower-case letters, digits and '_'")
    old = _REGISTRY.get(spec.name)
    if old is not None and not replace and old.module_file != spec.module_file:
        raise ValueError(
            f"algorithm name {spec.name!r} is registered twice ({old.module_file} and {spec.module_file}); rename one"
        )
    _REGISTRY[spec.name] = spec
    return spec


def _register_module(module) -> None:
    specs = getattr(module, "ALGORITHMS", None) or []
    if getattr(module, "ALGORITHM", None) is not None:
        specs = [module.ALGORITHM, *specs]
    for spec in specs:
        if not spec.module_file:
            spec = AlgorithmSpec(**{**spec.__dict__, "module_file": getattr(module, "__file__", "")})
        register(spec)


def _load_plugin_file(path: Path):
    mod_name = "duelbench_plugins." + path.stem
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load algorithm plug-in {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    spec.loader.exec_module(module)
    return module


def discover(force: bool = False) -> None:
    """Import built-in modules, plug-in files and entry points (once per process)."""
    global _DISCOVERED
    if _DISCOVERED and not force:
        return
    _DISCOVERED = True
    import duelbench.algorithms as pkg

    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.name == "registry":
            continue
        _register_module(importlib.import_module(f"duelbench.algorithms.{info.name}"))
    for folder in filter(None, os.environ.get(PLUGIN_PATH_ENV, "").split(os.pathsep)):
        d = Path(folder)
        if not d.is_dir():
            raise FileNotFoundError(f"{PLUGIN_PATH_ENV} names {folder!r}, which is not a directory")
        for f in sorted(d.glob("*.py")):
            _register_module(_load_plugin_file(f))
    for ep in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        _register_module(ep.load())


def get_algorithm(name: str) -> AlgorithmSpec:
    """The spec registered under ``name`` (clear error listing valid names otherwise)."""
    discover()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown algorithm {name!r}; registered: {', '.join(sorted(_REGISTRY))}") from None


def list_algorithms() -> list[str]:
    """Sorted names of all registered algorithms."""
    discover()
    return sorted(_REGISTRY)


def canonical_params(name: str, params: dict[str, Any] | None = None) -> dict[str, float]:
    """Defaults merged with ``params`` (unknown keys rejected), as floats, validated."""
    spec = get_algorithm(name)
    params = dict(params or {})
    unknown = sorted(set(params) - set(spec.defaults))
    if unknown:
        raise ValueError(
            f"algorithm {name!r} has no parameter(s) {unknown}; its parameters are {sorted(spec.defaults)}"
        )
    out = {}
    for key, default in spec.defaults.items():
        value = params.get(key, default)
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"algorithm {name!r}: parameter {key!r} must be a number, got {value!r}") from None
        if not np.isfinite(value):
            raise ValueError(f"algorithm {name!r}: parameter {key!r} must be finite, got {value!r}")
        out[key] = value
    if spec.validate is not None:
        spec.validate(out)
    return out


def params_array(name: str, params: dict[str, float]) -> np.ndarray:
    """Canonical parameters as the float64 array a compiled kernel receives."""
    spec = get_algorithm(name)
    return np.array([params[k] for k in spec.defaults], dtype=np.float64)


def param_hash(name: str, params: dict[str, Any] | None = None) -> str:
    """10 hex characters of sha256 of the canonical parameters (part of shard paths)."""
    canon = canonical_params(name, params)
    text = json.dumps(canon, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:10]


#: Packages whose code cannot change a simulation's numbers (see
#: :data:`duelbench.provenance.codehash.PROVENANCE`).
NOT_SIMULATION_CODE = ("duelbench.provenance",)


def source_hash(name: str, *, with_data: bool = True) -> str:
    """Hash of the code that computes the algorithm's simulation results.

    :func:`duelbench.provenance.codehash.closure_hash` of the algorithm's module together with
    :mod:`duelbench.engine.simulate` (the engine, the regret definitions and everything they
    import), without :data:`NOT_SIMULATION_CODE`: comments and docstrings do not count, any
    other edit in that closure changes it.  The workflow passes it to the simulation rules (an
    edit reruns exactly the affected shards).  ``with_data=False`` also leaves out the dataset
    loaders (:mod:`duelbench.data`), for keys that hold the loaded matrix's own sha256 (the
    results archive): a loader edit that leaves every matrix as it was keeps them valid.
    """
    from duelbench.provenance.codehash import closure_hash, module_file

    exclude = NOT_SIMULATION_CODE + (() if with_data else ("duelbench.data",))
    return closure_hash(get_algorithm(name).module_file, module_file("duelbench.engine.simulate"), exclude=exclude)
