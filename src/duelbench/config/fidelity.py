"""Fidelities and where things go: the effective configuration of a fidelity and its folders.

``config["fidelity"]`` names an entry of ``config["fidelities"]``; its ``overrides`` are
deep-merged into the configuration (:func:`effective_config`) and its ``figures`` entry says where
tables and figures go (:func:`figures_dir`). The fidelity is part of every shard path, so quick
and paper-fidelity results never collide.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

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


def effective_config(config: Mapping, fidelity: str | None = None) -> dict:
    """``config`` with the fidelity's ``overrides`` deep-merged in and ``fidelity`` set.

    Idempotent: applying it to its own result changes nothing.
    """
    name = active_fidelity(config, fidelity)
    out = deep_merge(config, fidelity_settings(config, name).get("overrides") or {})
    out["fidelity"] = name
    return out


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
