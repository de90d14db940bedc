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

from .generators import SamplingError, SubmatrixSample, btl, cyclic, hard_condorcet, random_btl, random_submatrix
from .matrix import InvalidMatrixError, PreferenceMatrix, TiedPairWarning
from .regret import REGRET_KINDS, NoCondorcetWinnerError, regret_matrix
from .winners import (
    RANDOM_WALK_CHAINS,
    borda_scores,
    borda_winners,
    condorcet_winner,
    copeland_scores,
    copeland_winners,
    losses,
    normalized_copeland_scores,
    random_walk_stationary,
    random_walk_transition_matrix,
    random_walk_winners,
    von_neumann_support,
    von_neumann_winner,
)

__all__ = [
    "PreferenceMatrix",
    "InvalidMatrixError",
    "TiedPairWarning",
    "copeland_scores",
    "losses",
    "normalized_copeland_scores",
    "copeland_winners",
    "condorcet_winner",
    "borda_scores",
    "borda_winners",
    "von_neumann_winner",
    "von_neumann_support",
    "random_walk_transition_matrix",
    "random_walk_stationary",
    "random_walk_winners",
    "RANDOM_WALK_CHAINS",
    "regret_matrix",
    "REGRET_KINDS",
    "NoCondorcetWinnerError",
    "btl",
    "random_btl",
    "hard_condorcet",
    "cyclic",
    "random_submatrix",
    "SubmatrixSample",
    "SamplingError",
]
