"""Experiments: one package per paper (plus :mod:`.demo`), on the contract of :mod:`.contract`.

Each paper's package turns its section of the workflow configuration into a :class:`~.contract.Plan`
(simulation and sample shards, steps, items); the workflow's generic rules build it. What the
papers share lives beside them: :mod:`.contract` (plans, steps, the step runner),
:mod:`.readings` (reading variants), :mod:`.bench_all` (a new algorithm on every instance),
:mod:`.samples` (seeded sample families), :mod:`.aggregate` (regret tables from shards),
:mod:`.plotting`, :mod:`.claims`, :mod:`.archiving` and :mod:`.cost`. Configuration is resolved
by :mod:`duelbench.config`; shards are specified and run by :mod:`duelbench.engine.jobs`.
"""
