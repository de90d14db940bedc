"""Algorithms and datasets named in a configuration, checked against their registries."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from duelbench.algorithms import registry
from duelbench.data import registry as data_registry

from .errors import ConfigError


@dataclass(frozen=True)
class AlgorithmEntry:
    """One configured algorithm: registry name, canonical parameters, their hash, a label."""

    name: str
    params: dict = field(hash=False, compare=False)
    param_hash: str = ""
    label: str = ""


def algorithm_entries(entries: Iterable[Any], where: str = "algorithms") -> list[AlgorithmEntry]:
    """Normalise a configured algorithm list.

    Each entry is a registry name (``"rucb"``) or a mapping ``{name, params, label}``. Parameters
    are merged with the algorithm's defaults and validated by the registry. Raises
    :class:`ConfigError` naming ``where[i]`` for an unknown algorithm or a bad parameter.
    """
    known = registry.list_algorithms()
    out = []
    seen = set()
    for i, entry in enumerate(entries):
        key = f"{where}[{i}]"
        if isinstance(entry, str):
            entry = {"name": entry}
        name = entry.get("name")
        if name not in known:
            raise ConfigError(f"{key}: unknown algorithm {name!r}; registered algorithms: {', '.join(known)}")
        try:
            params = registry.canonical_params(name, entry.get("params") or {})
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"{key}: invalid parameters for {name!r}: {exc}") from None
        phash = registry.param_hash(name, params)
        if (name, phash) in seen:
            raise ConfigError(f"{key}: {name!r} with these parameters is listed twice")
        seen.add((name, phash))
        out.append(AlgorithmEntry(name=name, params=params, param_hash=phash, label=str(entry.get("label") or "")))
    return out


def check_datasets(names: Iterable[str], where: str = "datasets") -> None:
    """Raise :class:`ConfigError` for a dataset name the dataset registry does not know."""
    for i, name in enumerate(names):
        try:
            data_registry.dataset_info(name)
        except LookupError as exc:
            raise ConfigError(f"{where}[{i}]: {exc}") from None


def dataset_inputs(dataset: str, data_root: str = "data") -> list[str]:
    """Files that must exist before ``dataset`` can be loaded: its downloaded MSLR matrix, if any.

    ``<data_root>/mslr/<upstream file name>`` (what the ``fetch_mslr`` rule makes), from
    :func:`duelbench.data.registry.required_files`; empty for matrices kept in the checkout.
    """
    return [os.fspath(p) for p in data_registry.required_files(dataset, data_root=data_root)]
