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

**Families of per-run instances.**  A recipe with the key ``per_run_seed: <int>`` declares a
*family*: a fresh instance for every run, the same for every algorithm (e.g. the SYN-BTL and
SYN-CD data of Agarwal et al. 2022, paper 003 @31554-@32305, "We repeat each experiment 10
times", @32428)::

    datasets:
      agarwal_syn_btl:
        generator: random_btl
        params: {K: 100}
        per_run_seed: 2022001

Its generator must take an ``rng`` parameter, which the recipe must then not give: instance
``r`` is ``generator(**params, rng=numpy.random.SeedSequence([per_run_seed, r]),
name=f"{family}.run{r}")`` (:func:`load_instance`), so instance ``r`` depends only on the
recipe and ``r`` (not on the algorithm, the shard layout or the process).  The seed is a
non-negative integer.  The registry adds families as kind ``"family"``.

The design mirrors :mod:`duelbench.data.sampled`; the registry adds these recipes as kind
``"generated"`` (:mod:`duelbench.data.registry`).

Decisions
---------
* Instance ``r`` of a family is named ``"<family>.run<r>"`` (``r`` without leading zeros); that
  name is the matrix's identity, so the engine keys run ``r``'s random streams by it.  A family
  name may therefore not contain ``".run"``.
* The instance seed is ``SeedSequence([per_run_seed, r])``: independent of the workflow's global
  ``seed`` (the instances are data, declared once in the recipe).
* A family's K is the K of its instance 0 (every generator here fixes K by a parameter).
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import DataError, InvalidDataFileError
from .recipe_files import read_recipe_folder
from .paths import project_root

_KEYS = {"generator", "params", "description", "origin", "per_run_seed"}

#: Name of run ``r``'s instance of a family: ``f"{family}{INSTANCE_SEPARATOR}{r}"``.
INSTANCE_SEPARATOR = ".run"


@dataclass(frozen=True)
class GeneratedRecipe:
    name: str
    generator: str
    params: dict = field(hash=False, compare=True)
    description: str = ""
    origin: str = ""
    file: str = ""
    #: SeedSequence entropy of a family's instances (None: a single matrix).
    per_run_seed: int | None = None

    @property
    def is_family(self) -> bool:
        return self.per_run_seed is not None


class FamilyDatasetError(DataError, ValueError):
    """A family of per-run instances was asked for as one matrix; the message names
    :func:`load_instance` (and the family's file)."""


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
    seed = doc.get("per_run_seed")
    extra = {}
    if "per_run_seed" in doc:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise InvalidDataFileError(f"{where}.per_run_seed: expected a non-negative integer (the SeedSequence "
                                       f"entropy of the family's instances), got {seed!r}")
        if "rng" not in inspect.signature(gens[gen]).parameters:
            raise InvalidDataFileError(f"{where}.per_run_seed: generator {gen} has no rng parameter, so it cannot "
                                       f"draw one instance per run; remove per_run_seed or use a generator with "
                                       f"an rng parameter")
        if "rng" in params:
            raise InvalidDataFileError(f"{where}.params.rng: a family (per_run_seed) draws instance r from "
                                       f"SeedSequence([per_run_seed, r]); remove params.rng, or remove per_run_seed "
                                       f"for a single instance drawn from rng")
        if INSTANCE_SEPARATOR in name:
            raise InvalidDataFileError(f"{where}: a family name must not contain {INSTANCE_SEPARATOR!r} (its "
                                       f"instances are named '<family>{INSTANCE_SEPARATOR}<r>'); rename it")
        extra = {"rng": None}
    try:
        inspect.signature(gens[gen]).bind(**params, **extra, name=name)
    except TypeError as exc:
        raise InvalidDataFileError(f"{where}.params: do not match {gen}{inspect.signature(gens[gen])} ({exc})") from None
    return GeneratedRecipe(name=name, generator=gen, params=dict(params), description=str(doc.get("description", "")),
                           origin=str(doc.get("origin", "")), file=str(file), per_run_seed=seed)


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
    if r.is_family:
        raise FamilyDatasetError(f"{name!r} is a family of per-run instances ({r.file}: datasets.{name}."
                                 f"per_run_seed), not one matrix; load run r's instance with load_instance({name!r}, r)")
    try:
        return _generators()[r.generator](**r.params, name=name)
    except (ValueError, TypeError) as exc:
        raise InvalidDataFileError(f"{r.file}: datasets.{name}.params: {r.generator} rejected them ({exc})") from None


def instance_name(family: str, run: int) -> str:
    """The name of run ``run``'s instance of ``family``: ``"<family>.run<run>"``."""
    return f"{family}{INSTANCE_SEPARATOR}{int(run)}"


def _run_index(run) -> int:
    if isinstance(run, bool) or not isinstance(run, (int, np.integer)) or run < 0:
        raise ValueError(f"a run index is a non-negative integer, got {run!r}")
    return int(run)


@functools.lru_cache(maxsize=None)
def _instance(family: str, run: int):
    r = recipes()[family]
    try:
        return _generators()[r.generator](**r.params, rng=np.random.SeedSequence([r.per_run_seed, run]),
                                          name=instance_name(family, run))
    except (ValueError, TypeError) as exc:
        raise InvalidDataFileError(f"{r.file}: datasets.{family}.params: {r.generator} rejected them ({exc})") from None


def load_instance(family: str, run: int):
    """Run ``run``'s instance of the family recipe ``family`` (cached).

    ``generator(**params, rng=SeedSequence([per_run_seed, run]), name="<family>.run<run>")``;
    its ``.name`` (hence its :attr:`~duelbench.problems.matrix.PreferenceMatrix.identity`) is the
    instance name.
    """
    r = recipes()[family]
    if not r.is_family:
        raise ValueError(f"{family!r} is a single generated matrix ({r.file}: datasets.{family} has no "
                         f"per_run_seed), not a family of per-run instances; load it with load_matrix({family!r})")
    return _instance(family, _run_index(run))


def generated_K(name: str) -> int:
    """Number of arms of recipe ``name`` (builds the matrix, or a family's instance 0, once;
    generated matrices are cheap)."""
    if recipes()[name].is_family:
        return load_instance(name, 0).K
    return load_generated(name).K
