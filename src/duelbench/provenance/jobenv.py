"""The environment every computing job runs in: one thread per job.

The workflow sets these variables for its jobs (``Snakefile``), so that ``--cores N`` means N busy
cores, and so does every command that times a job outside it (``duelbench cost --time-missing``).
Multi-threaded BLAS beside other jobs spins on a busy machine: a 136-arm linear solve of
Zoghi et al.'s Appendix C took about 13 times the CPU with OpenBLAS's default threads than with one.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

#: Thread-count variables of numba and of the BLAS/OpenMP libraries numpy and scipy load.
ONE_THREAD_VARIABLES = ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def job_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default ``os.environ``) with every :data:`ONE_THREAD_VARIABLES` set to 1."""
    env = dict(os.environ if base is None else base)
    env.update({name: "1" for name in ONE_THREAD_VARIABLES})
    return env
