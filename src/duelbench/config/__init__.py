"""Configuration: fidelities, output folders, configured algorithms and datasets, validation.

It sits below the engine, the experiments and the report, which all resolve a configuration the
same way:

* :mod:`.fidelity` — the effective configuration of a fidelity (the user's values over its
  overrides) and where its files go;
* :mod:`.entries` — configured algorithm lists and dataset names, checked against the registries;
* :mod:`.schema` — the JSON schemas of ``workflow/schemas`` and the semantic checks;
* :mod:`.files` — configuration files (``duelbench config-check``) and the checkout's own.

Every problem raises :class:`ConfigError` naming the key and the fix.
"""

from .entries import AlgorithmEntry, algorithm_entries, check_datasets, dataset_inputs
from .errors import ConfigError
from .fidelity import (
    DEFAULT_FIGURES_ROOT,
    DEFAULT_RESULTS_ROOT,
    UserKeys,
    active_fidelity,
    data_file,
    deep_merge,
    effective_config,
    experiment_settings,
    fidelity_settings,
    figures_dir,
    figures_root,
    output_paths,
    override_notes,
    paper_settings,
    results_root,
    user_precedence,
)
from .schema import check_config, require_keys, validate_config

__all__ = [
    "AlgorithmEntry", "ConfigError", "DEFAULT_FIGURES_ROOT", "DEFAULT_RESULTS_ROOT", "active_fidelity",
    "algorithm_entries", "check_config", "check_datasets", "data_file", "dataset_inputs", "deep_merge",
    "effective_config", "experiment_settings", "fidelity_settings", "figures_dir", "figures_root",
    "output_paths", "override_notes", "paper_settings", "require_keys", "results_root", "UserKeys",
    "user_precedence", "validate_config",
]
