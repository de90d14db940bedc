"""Sampled datasets: random submatrices of a registered matrix, declared by a seeded recipe.

Experiments that need "a random 16-arm submatrix of the MSLR matrix with a Condorcet winner"
(Komiyama et al. 2016, paper 000 L295) declare it once in ``data/sampled/<paper>.yaml``::

    datasets:
      kom16_mslr16_condorcet:
        parent: mslr_informational
        K: 16
        min_gap: 0.005          # reject subsets with any |p_ij − 1/2| < min_gap
        condorcet: true         # true: must have a Condorcet winner; false: must not; null: either
        seed: 2016001           # SeedSequence entropy of the sampler
        description: ...
        origin: paper 000 L295, Figure 1(a)

The recipe is drawn with :func:`duelbench.problems.generators.random_submatrix` (uniform
K-subsets, rejection sampling, subset sorted so the parent's orientation is kept) from
``numpy.random.Generator(PCG64(SeedSequence(seed)))``: the same name gives the same matrix on
every machine with the locked NumPy.  The chosen parent indices are available through
:func:`sampled_indices` so experiments can print them next to their figures.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import InvalidDataFileError
from .recipe_files import read_recipe_folder
from .paths import project_root

_KEYS = {"parent", "K", "min_gap", "condorcet", "seed", "description", "origin"}


@dataclass(frozen=True)
class SampledRecipe:
    name: str
    parent: str
    K: int
    min_gap: float | None
    condorcet: bool | None
    seed: int
    description: str
    origin: str
    file: str


def sampled_dir() -> Path:
    return project_root() / "data" / "sampled"


def _parse(name: str, doc, file: Path) -> SampledRecipe:
    where = f"{file}: datasets.{name}"
    if not isinstance(doc, dict):
        raise InvalidDataFileError(f"{where}: expected a mapping with keys {sorted(_KEYS)}")
    unknown = set(doc) - _KEYS
    missing = {"parent", "K", "seed"} - set(doc)
    if unknown or missing:
        raise InvalidDataFileError(f"{where}: unknown keys {sorted(unknown)} / missing keys {sorted(missing)}; "
                                   f"allowed: {sorted(_KEYS)}")
    K, seed = doc["K"], doc["seed"]
    if not isinstance(K, int) or K < 2 or not isinstance(seed, int) or seed < 0:
        raise InvalidDataFileError(f"{where}: K must be an integer ≥ 2 and seed a non-negative integer")
    gap = doc.get("min_gap")
    if gap is not None and not (isinstance(gap, (int, float)) and 0 <= gap < 0.5):
        raise InvalidDataFileError(f"{where}: min_gap must be a number in [0, 0.5) or null")
    cw = doc.get("condorcet")
    if cw not in (True, False, None):
        raise InvalidDataFileError(f"{where}: condorcet must be true, false or null")
    return SampledRecipe(name=name, parent=str(doc["parent"]), K=K, min_gap=None if gap is None else float(gap),
                         condorcet=cw, seed=seed, description=str(doc.get("description", "")),
                         origin=str(doc.get("origin", "")), file=str(file))


@functools.lru_cache(maxsize=None)
def recipes() -> dict[str, SampledRecipe]:
    """Every recipe of ``data/sampled/*.yaml`` (names must be unique across files)."""
    return read_recipe_folder(sampled_dir(), _parse)


@functools.lru_cache(maxsize=None)
def _draw(name: str):
    from duelbench.problems.generators import random_submatrix

    from .registry import load_matrix

    r = recipes()[name]
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(r.seed)))
    return random_submatrix(load_matrix(r.parent), r.K, rng, min_gap=r.min_gap, condorcet=r.condorcet, name=name)


def load_sampled(name: str):
    """The :class:`PreferenceMatrix` of recipe ``name`` (its ``.name`` is ``name``)."""
    return _draw(name).matrix


def sampled_indices(name: str) -> tuple[int, ...]:
    """The parent indices (0-based, increasing) of recipe ``name``."""
    return tuple(int(i) for i in _draw(name).indices)


def sampled_tries(name: str) -> int:
    """How many subsets the rejection sampler drew for recipe ``name``."""
    return int(_draw(name).tries)
