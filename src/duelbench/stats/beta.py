"""Beta posteriors of pairwise preferences (the Thompson-sampling algorithms: D-TS, D-TS+, RCS).

With a uniform Beta(1, 1) prior on p_ij and B_ij wins of i over j, the posterior of p_ij is
Beta(B_ij + 1, B_ji + 1) (Wu & Liu, NIPS 2016, Algorithm 1 lines 8 and 13; Zoghi et al., WSDM
2014, RCS).  One draw consumes the generator exactly as ``rng.beta(a, b)`` does, so moving an
algorithm onto this function leaves its random stream unchanged.
"""

import numba


@numba.njit(cache=True)
def posterior_draw(B, i, j, rng):
    """One sample θ_ij ~ Beta(B_ij + 1, B_ji + 1) from the win counts ``B`` (float64, K × K)."""
    return rng.beta(B[i, j] + 1.0, B[j, i] + 1.0)
