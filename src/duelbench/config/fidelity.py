"""Fidelities and where things go: the effective configuration of a fidelity and its folders.

``config["fidelity"]`` names an entry of ``config["fidelities"]``; its ``overrides`` are
deep-merged into the configuration (:func:`effective_config`) and its ``figures`` entry says where
tables and figures go (:func:`figures_dir`). The fidelity is part of every shard path, so quick
and paper-fidelity results never collide.

A value that the user's own configuration files set (:class:`UserKeys`) wins over the
fidelity's override of the same key; :func:`override_notes` says which ones did.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from duelbench.data.paths import project_root

from .errors import ConfigError

DEFAULT_RESULTS_ROOT = "results"
DEFAULT_FIGURES_ROOT = "figures"


def deep_merge(base: Mapping, override: Mapping) -> dict:
    """A new dict: ``base`` with ``override`` merged in (mappings recursively, the rest replaced)."""
    out = copy.deepcopy(dict(base))
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def leaf_paths(mapping: Mapping, prefix: str = "") -> Iterator[str]:
    """Dotted key paths of the values a mapping sets (``demo.horizon``); nested mappings are
    walked (an empty one sets nothing), every other value (lists included) is one leaf."""
    for key, value in mapping.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, Mapping):
            yield from leaf_paths(value, path)
        else:
            yield path


def _covers(key: str, path: str) -> bool:
    """Whether the dotted key ``key`` is ``path`` or one of its parents (``demo`` covers
    ``demo.runs`` and ``demo.algorithms[1]``)."""
    return path == key or path.startswith(key + ".") or path.startswith(key + "[")


@dataclass(frozen=True)
class UserKeys:
    """The values the user's configuration files set over the checkout's configuration.

    Attributes
    ----------
    values : dict
        The user's layers merged in order (a later layer's value replaces an earlier one's).
    sources : dict
        Dotted key path of every value a layer sets -> the name of the last layer setting it.
    base : str
        Name of the configuration the layers are merged over (for keys no layer sets).
    """

    values: dict = field(default_factory=dict)
    sources: dict = field(default_factory=dict)
    base: str = ""

    @classmethod
    def from_layers(cls, layers: Sequence[tuple[str, Mapping]], base: str = "") -> "UserKeys":
        """Merge ``(name, values)`` layers in order, remembering which layer set each key."""
        values: dict = {}
        sources: dict = {}
        for name, layer in layers:
            values = deep_merge(values, layer)
            for path in leaf_paths(layer):
                sources = {k: v for k, v in sources.items() if not _covers(path, k)}
                sources[path] = name
        return cls(values=values, sources=sources, base=base)

    def source(self, path: str) -> str:
        """The layer that set ``path`` (or the parent key holding it), else :attr:`base`."""
        keys = [k for k in self.sources if _covers(k, path)]
        return self.sources[max(keys, key=len)] if keys else self.base

    def value(self, path: str) -> Any:
        """The user's value at dotted key ``path``."""
        node: Any = self.values
        for part in path.split("."):
            node = node[part]
        return node


def user_precedence(overrides: Mapping, user: Mapping, prefix: str = "") -> tuple[dict, list[tuple[str, Any]]]:
    """Split a fidelity's ``overrides`` into those that apply and those the user's values replace.

    Parameters
    ----------
    overrides : Mapping
        A fidelity's ``overrides``.
    user : Mapping
        The values of the user's configuration files (:attr:`UserKeys.values`).
    prefix : str
        Dotted key path of ``overrides`` (for the recursion).

    Returns
    -------
    kept : dict
        ``overrides`` without the keys the user sets (nested mappings pruned key by key).
    replaced : list of (str, object)
        Dotted key path and override value of every key the user's value replaces.
    """
    kept: dict = {}
    replaced: list[tuple[str, Any]] = []
    for key, value in overrides.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if key not in user:
            kept[key] = copy.deepcopy(value)
        elif isinstance(value, Mapping) and isinstance(user[key], Mapping):
            kept[key], more = user_precedence(value, user[key], path)
            replaced += more
        else:
            replaced.append((path, value))
    return kept, replaced


def active_fidelity(config: Mapping, fidelity: str | None = None) -> str:
    """The fidelity name: ``fidelity`` if given, else ``config["fidelity"]`` (default "paper")."""
    name = fidelity if fidelity is not None else config.get("fidelity", "paper")
    known = config.get("fidelities", {})
    if known and name not in known:
        raise ConfigError(f"fidelity {name!r} is not defined under 'fidelities' (defined: {', '.join(sorted(known))})")
    return name


def fidelity_settings(config: Mapping, fidelity: str | None = None) -> dict:
    """The block ``config["fidelities"][fidelity]`` (empty if the fidelity defines nothing)."""
    name = active_fidelity(config, fidelity)
    return dict(config.get("fidelities", {}).get(name) or {})


def effective_config(config: Mapping, fidelity: str | None = None, user: UserKeys | None = None) -> dict:
    """``config`` with the fidelity's ``overrides`` deep-merged in and ``fidelity`` set.

    Parameters
    ----------
    config : Mapping
        The configuration, the user's files already merged in.
    fidelity : str, optional
        The fidelity (default: ``config["fidelity"]``).
    user : UserKeys, optional
        What the user's files set: those keys keep the user's value (:func:`user_precedence`),
        and the result holds the fidelity's remaining overrides only.

    Idempotent: applying it to its own result changes nothing.
    """
    name = active_fidelity(config, fidelity)
    overrides = fidelity_settings(config, name).get("overrides") or {}
    if user is not None:
        overrides, _ = user_precedence(overrides, user.values)
    out = deep_merge(config, overrides)
    out["fidelity"] = name
    block = out.get("fidelities", {}).get(name)
    if user is not None and isinstance(block, dict) and "overrides" in block:
        block["overrides"] = overrides
    return out


def override_notes(config: Mapping, user: UserKeys, fidelity: str | None = None) -> list[str]:
    """One line per fidelity override that a user's value replaces, e.g.
    ``demo.horizon = 500 from my.yaml replaces the smoke override 2000``."""
    name = active_fidelity(config, fidelity)
    _, replaced = user_precedence(fidelity_settings(config, name).get("overrides") or {}, user.values)
    return [f"{path} = {_shown(user.value(path))} from {user.source(path)} replaces the {name} override "
            f"{_shown(value)}" for path, value in replaced if user.value(path) != value]


def _shown(value: Any) -> str:
    """A configuration value as one line of JSON."""
    return json.dumps(value, default=str)


def experiment_settings(config: Mapping, experiment: str, fidelity: str | None = None) -> dict:
    """The effective settings of one experiment (its config section after fidelity overrides)."""
    eff = effective_config(config, fidelity)
    if experiment not in eff:
        raise ConfigError(f"the configuration has no section {experiment!r}")
    return eff[experiment]


def results_root(config: Mapping) -> str:
    """Root folder of the shard cache (``config["results"]``, default ``results``)."""
    return str(config.get("results", DEFAULT_RESULTS_ROOT)).rstrip("/")


def figures_root(config: Mapping, fidelity: str | None = None) -> str:
    """Where tables and figures of the active fidelity go (its ``figures`` entry)."""
    return str(fidelity_settings(config, fidelity).get("figures", DEFAULT_FIGURES_ROOT)).rstrip("/")


def figures_dir(config: Mapping, experiment: str, fidelity: str | None = None) -> str:
    """``<figures root of the fidelity>/<experiment>``."""
    return f"{figures_root(config, fidelity)}/{experiment}"


def paper_settings(config: Mapping, experiment: str, fidelity: str | None = None) -> dict:
    """A deep copy of the experiment's effective section (:func:`experiment_settings`) plus
    ``fidelity`` (the active one), ``figures`` (:func:`figures_dir`) and ``results``
    (:func:`results_root`): what a paper's ``settings`` starts from before its own defaults and
    checks."""
    fid = active_fidelity(config, fidelity)
    s = copy.deepcopy(dict(experiment_settings(config, experiment, fid)))
    s["fidelity"] = fid
    s["figures"] = figures_dir(config, experiment, fid)
    s["results"] = results_root(config)
    return s


def output_paths(config: Mapping, experiment: str, files: Mapping[str, str], fidelity: str | None = None
                 ) -> dict[str, str]:
    """A paper's final outputs by key: each file name of ``files`` (key -> name) under
    :func:`figures_dir`; sidecars are ``<path>.json``."""
    d = figures_dir(config, experiment, fidelity)
    return {k: f"{d}/{v}" for k, v in files.items()}


def data_file(experiment: str, folder: str = "published"):
    """``data/<folder>/<experiment>.yaml`` of the checkout: with the default folder, the paper's
    published-number registry (:mod:`duelbench.report.checks`)."""
    return project_root() / "data" / folder / f"{experiment}.yaml"
