"""Small matrices and helpers shared by the engine tests (no dataset loading needed)."""

import numpy as np

# Komiyama et al. (2016) Table 3(d), "ArXiv" (K = 6), as printed (with its tie mu_46 = 0.50).
ARXIV = np.array([
    [0.50, 0.55, 0.55, 0.54, 0.61, 0.61],
    [0.45, 0.50, 0.55, 0.55, 0.58, 0.60],
    [0.45, 0.45, 0.50, 0.54, 0.51, 0.56],
    [0.46, 0.45, 0.46, 0.50, 0.54, 0.50],
    [0.39, 0.42, 0.49, 0.46, 0.50, 0.51],
    [0.39, 0.40, 0.44, 0.50, 0.49, 0.50],
])

# Komiyama et al. (2016) Table 3(c), "MultiSol" (K = 5): three Copeland winners, no CW.
MULTISOL = np.array([
    [0.5, 0.2, 0.8, 0.8, 0.8],
    [0.8, 0.5, 0.2, 0.8, 0.8],
    [0.2, 0.8, 0.5, 0.8, 0.8],
    [0.2, 0.2, 0.2, 0.5, 0.6],
    [0.2, 0.2, 0.2, 0.4, 0.5],
])


def random_matrix(K, seed):
    """A random K×K preference matrix without ties."""
    rng = np.random.default_rng(seed)
    U = rng.uniform(0.05, 0.95, size=(K, K))
    P = np.triu(U, 1)
    P = P + np.tril(1.0 - P.T, -1)
    np.fill_diagonal(P, 0.5)
    return P


def run_without_jit(script: str, payload=None, timeout: int = 900):
    """Run ``script`` with ``python -c`` under ``NUMBA_DISABLE_JIT=1`` (the pure-Python path of
    the compiled kernels), passing ``payload`` as a JSON argument; its JSON stdout, parsed."""
    import json
    import os
    import subprocess
    import sys

    args = [sys.executable, "-c", script] + ([] if payload is None else [json.dumps(payload)])
    proc = subprocess.run(args, env=dict(os.environ, NUMBA_DISABLE_JIT="1"), capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
