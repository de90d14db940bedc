"""Dueling-bandit problem instances: preference matrices, winners, regrets, generators.

Public API (see the submodules for details and paper references):

* :class:`PreferenceMatrix` -- validated, immutable K x K preference matrix
  (:mod:`.matrix`), with :class:`InvalidMatrixError` and
  :class:`TiedPairWarning`.
* Winner notions (:mod:`.winners`): Copeland scores / losses / winners,
  Condorcet, Borda, von Neumann, random-walk winners.
* Per-pair regret matrices (:mod:`.regret`): :func:`regret_matrix`,
  :data:`REGRET_KINDS`.
* Generators (:mod:`.generators`): BTL, the hard Condorcet instance of
  Agarwal et al. 2022, cyclic tournaments, random submatrices.
"""

from . import generators, regret, winners
from .generators import *  # noqa: F401,F403  (names listed in generators.__all__)
from .matrix import InvalidMatrixError, PreferenceMatrix, TiedPairWarning
from .regret import *  # noqa: F401,F403
from .winners import *  # noqa: F401,F403

__all__ = ["PreferenceMatrix", "InvalidMatrixError", "TiedPairWarning", *winners.__all__, *regret.__all__,
           *generators.__all__]
