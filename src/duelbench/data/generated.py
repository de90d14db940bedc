"""Generated datasets: synthetic matrices declared by a recipe (generator name + parameters).

Experiments that need a synthetic instance described only by its structure (e.g. the 500-arm
problem of Zoghi et al. 2015, paper 001 L397) declare it once in ``data/generated/<paper>.yaml``::

    datasets:
      zoghi_copeland500:
        generator: copeland_cycle_plus_order     # a function of duelbench.problems.generators
        params: {n_winners: 3, n_others: 497, g_w: 0.1, g_wn: 0.1, g_nn: 0.1}
        description: ...
        origin: paper 001 L397, Figure 2

The generator must be listed in ``duelbench.problems.generators.__all__`` and is called as
``generator(**params, name=<dataset name>)``; ``params`` must bind to its signature.  Recipes
are deterministic: a generator that needs randomness takes it from an explicit parameter (e.g.
an integer ``rng`` seed) written in the recipe, so the same name gives the same matrix on every
machine.  Errors name the YAML file and the offending key (``datasets.<name>.<key>``).

The design mirrors :mod:`duelbench.data.sampled`; the registry adds these recipes as kind
``"generated"`` (:mod:`duelbench.data.registry`).
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field
from pathlib import Path


from .errors import InvalidDataFileError
from .recipe_files import read_recipe_folder
from .paths import project_root

_KEYS = {"generator", "params", "description", "origin"}


@dataclass(frozen=True)
class GeneratedRecipe:
    name: str
    generator: str
    params: dict = field(hash=False, compare=True)
    description: str = ""
    origin: str = ""
    file: str = ""


def generated_dir() -> Path:
    return project_root() / "data" / "generated"


def _generators() -> dict:
    from duelbench.problems import generators

    return {n: getattr(generators, n) for n in generators.__all__ if inspect.isfunction(getattr(generators, n))}


def _parse(name: str, doc, file: Path) -> GeneratedRecipe:
    where = f"{file}: datasets.{name}"
    if not isinstance(doc, dict):
        raise InvalidDataFileError(f"{where}: expected a mapping with keys {sorted(_KEYS)}")
    unknown = set(doc) - _KEYS
    missing = {"generator"} - set(doc)
    if unknown or missing:
        raise InvalidDataFileError(f"{where}: unknown keys {sorted(unknown)} / missing keys {sorted(missing)}; "
                                   f"allowed: {sorted(_KEYS)}")
    gens = _generators()
    gen = doc["generator"]
    if gen not in gens:
        raise InvalidDataFileError(f"{where}.generator: {gen!r} is not a generator of duelbench.problems.generators; "
                                   f"valid: {', '.join(sorted(gens))}")
    params = doc.get("params") or {}
    if not isinstance(params, dict) or not all(isinstance(k, str) for k in params):
        raise InvalidDataFileError(f"{where}.params: expected a mapping of parameter names to values, got {params!r}")
    for key, value in params.items():
        if not isinstance(value, (int, float, str, bool, list)) and value is not None:
            raise InvalidDataFileError(f"{where}.params.{key}: expected a number, string, boolean, list or null, "
                                       f"got {value!r}")
    if "name" in params:
        raise InvalidDataFileError(f"{where}.params.name: the matrix name is the dataset name; remove this key")
    try:
        inspect.signature(gens[gen]).bind(**params, name=name)
    except TypeError as exc:
        raise InvalidDataFileError(f"{where}.params: do not match {gen}{inspect.signature(gens[gen])} ({exc})") from None
    return GeneratedRecipe(name=name, generator=gen, params=dict(params), description=str(doc.get("description", "")),
                           origin=str(doc.get("origin", "")), file=str(file))


@functools.lru_cache(maxsize=None)
def recipes() -> dict[str, GeneratedRecipe]:
    """Every recipe of ``data/generated/*.yaml`` (names must be unique across files)."""
    return read_recipe_folder(generated_dir(), _parse)


@functools.lru_cache(maxsize=None)
def load_generated(name: str):
    """The :class:`PreferenceMatrix` of recipe ``name`` (its ``.name`` is ``name``; cached).

    A generator that rejects the parameters' values raises :class:`InvalidDataFileError`
    naming the file and ``datasets.<name>.params``.
    """
    r = recipes()[name]
    try:
        return _generators()[r.generator](**r.params, name=name)
    except (ValueError, TypeError) as exc:
        raise InvalidDataFileError(f"{r.file}: datasets.{name}.params: {r.generator} rejected them ({exc})") from None


def generated_K(name: str) -> int:
    """Number of arms of recipe ``name`` (builds the matrix once; generated matrices are cheap)."""
    return load_generated(name).K
