"""Dueling-bandit algorithms, one module per algorithm family, discovered by the registry.

See :mod:`duelbench.algorithms.registry` for how to add an algorithm.
"""

from duelbench.provenance.compiled_cache import install as _install_compiled_cache

_install_compiled_cache()
