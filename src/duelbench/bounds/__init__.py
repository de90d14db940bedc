"""Theory constants of the replicated papers (regret-bound coefficients, lower bounds).

Modules are imported on use (e.g. ``from duelbench.bounds.ecw import ecw_constant``), so that
loading one does not compile or import the others.
"""

from duelbench.provenance.compiled_cache import install as _install_compiled_cache

_install_compiled_cache()
