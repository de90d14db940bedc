"""duelbench: reproducible benchmark and paper-replication suite for dueling bandits.

Public API::

    duelbench.load_matrix(name)            -> PreferenceMatrix
    duelbench.simulate(algorithm, matrix, horizon, runs, seed=0, **params)
                                           -> SimulationResult (.checkpoints, .regret)
    duelbench.list_algorithms(), duelbench.list_datasets()
    duelbench.policy(algorithm, K, seed=0, horizon=None, **params)
                                           -> OnlinePolicy (.select(), .update(i, j, i_won))
    duelbench.load_policy(path)            -> OnlinePolicy saved by .save(path)

``__version__`` is the one place the version is written: ``pyproject.toml`` reads it from here
(``CITATION.cff`` repeats it; ``tests/test_packaging.py`` checks that they agree).
"""

__version__ = "0.1.0"

# An installed wheel carries the printed matrices and dataset recipes as package data; without
# a checkout the dataset layer reads them there (a no-op in a checkout or editable install).
from duelbench import package_data as _package_data

_package_data.install()

__all__ = ["load_matrix", "list_datasets", "simulate", "list_algorithms", "PreferenceMatrix", "SimulationResult",
           "policy", "load_policy"]


def __getattr__(name):
    # Lazy imports keep `import duelbench` cheap (numba compiles nothing until used).
    if name in ("load_matrix", "list_datasets"):
        from duelbench.data import registry

        return getattr(registry, name)
    if name == "simulate":
        from duelbench.engine.simulate import simulate

        return simulate
    if name == "list_algorithms":
        from duelbench.algorithms.registry import list_algorithms

        return list_algorithms
    if name == "PreferenceMatrix":
        from duelbench.problems.matrix import PreferenceMatrix

        return PreferenceMatrix
    if name == "SimulationResult":
        from duelbench.engine.result import SimulationResult

        return SimulationResult
    if name in ("policy", "load_policy"):
        from duelbench import online

        return getattr(online, name)
    raise AttributeError(f"module 'duelbench' has no attribute {name!r}")
