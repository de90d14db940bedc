"""Dueling-bandit algorithms, one module per algorithm family, discovered by the registry.

See :mod:`duelbench.algorithms.registry` for how to add an algorithm.
"""
