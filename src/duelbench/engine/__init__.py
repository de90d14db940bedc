"""The simulation engine: runs R independent runs of T steps and records cumulative regret.

* :mod:`.loop` — the run loop of every step-wise algorithm, compiled once per algorithm.
* :mod:`.checkpoints` — the time points at which cumulative regret is recorded.
* :mod:`.seeding` — random streams derived from sha256 of the job identity.
* :mod:`.simulate` — :func:`simulate`, the public entry point.
* :mod:`.python_loop` — the loop for pure-Python :class:`~duelbench.algorithms.registry.Policy`
  algorithms.
* :mod:`.shards` — cached result shards for the workflow.
* :mod:`.traces` — inspection of single runs (SCB's exploration phases).
"""

from duelbench.provenance.compiled_cache import install as _install_compiled_cache

_install_compiled_cache()
