"""The compiled and the plain-Python path of every algorithm give identical results.

The Python path is the same source run with ``NUMBA_DISABLE_JIT=1`` in a subprocess, so every
kernel (algorithm, statistics, recorder) runs as ordinary Python with NumPy's Generator.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from duelbench import simulate
from duelbench.algorithms.registry import get_algorithm, list_algorithms

from _engine_helpers import ARXIV, MULTISOL, random_matrix

CASES = {"arxiv": ARXIV, "multisol": MULTISOL, "random8": random_matrix(8, 11)}
HORIZON = 1500

SCRIPT = r"""
import json, sys, numpy as np, warnings
warnings.simplefilter("ignore")
from duelbench import simulate
args = json.loads(sys.argv[1])
out = {}
for alg in args["algorithms"]:
    for name, P in args["cases"].items():
        r = simulate(alg, np.array(P), args["horizon"], 2, seed=5, record_pairs=True)
        out[f"{alg}/{name}"] = {"pairs": r.pairs.tolist(), "regret": r.regret.tolist(),
                                "condorcet": np.nan_to_num(r.regrets["condorcet"], nan=-1.0).tolist()}
print(json.dumps(out))
"""

COMPILED = [a for a in list_algorithms() if get_algorithm(a).compiled]


@pytest.fixture(scope="module")
def python_path_results():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    arg = json.dumps({"algorithms": COMPILED, "cases": {k: v.tolist() for k, v in CASES.items()}, "horizon": HORIZON})
    proc = subprocess.run([sys.executable, "-c", SCRIPT, arg], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("algorithm", COMPILED)
@pytest.mark.parametrize("case", sorted(CASES))
def test_compiled_and_python_paths_identical(python_path_results, algorithm, case):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = simulate(algorithm, CASES[case], HORIZON, 2, seed=5, record_pairs=True)
    py = python_path_results[f"{algorithm}/{case}"]
    assert np.array_equal(r.pairs, np.array(py["pairs"]))
    assert np.array_equal(r.regret, np.array(py["regret"]))  # bit-identical sums
    assert np.array_equal(np.nan_to_num(r.regrets["condorcet"], nan=-1.0), np.array(py["condorcet"]))
