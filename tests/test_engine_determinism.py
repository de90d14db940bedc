"""Results depend only on the job's identity: not on processes, hash seeds, shard layout or reruns."""

import hashlib
import os
import subprocess
import sys
import warnings

import numpy as np

from duelbench import simulate
from duelbench.engine.result import SimulationResult
from duelbench.engine.shards import load_shards, run_shard, shard_path

SHARD_SCRIPT = r"""
import sys, warnings
warnings.simplefilter("ignore")
from duelbench.engine.shards import run_shard
out, a, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
run_shard(out, dataset="arxiv", algorithm="dts", params={}, horizon=3000, run_start=a, run_stop=b, seed=0,
          fidelity="test", quiet=True)
"""


def _sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def test_concurrent_shards_with_different_hash_seeds_equal_single_process(tmp_path):
    paths = [tmp_path / shard_path("test", "arxiv", "dts", {}, 3000, a, b, root="r") for a, b in [(0, 3), (3, 6)]]
    procs = []
    for seed_env, path in zip(["1", "4242"], paths):
        a, b = path.name[len("runs-"):-len(".npz")].split("-")
        env = dict(os.environ, PYTHONHASHSEED=seed_env)
        procs.append(subprocess.Popen([sys.executable, "-c", SHARD_SCRIPT, str(path), a, b], env=env,
                                      stderr=subprocess.PIPE))
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err.decode()
    merged = load_shards(paths)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        single = simulate("dts", "arxiv", 3000, 6, seed=0)
    assert np.array_equal(merged.regret, single.regret)
    assert np.array_equal(merged.checkpoints, single.checkpoints)
    assert list(merged.run_indices) == list(range(6))
    # rerun in this process: byte-identical shard files
    rerun = tmp_path / "rerun.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_shard(rerun, dataset="arxiv", algorithm="dts", params={}, horizon=3000, run_start=0, run_stop=3, seed=0,
                  fidelity="test", quiet=True)
    assert _sha(rerun) == _sha(paths[0])
    assert (tmp_path / "rerun.npz.json").exists()


def test_runs_do_not_depend_on_shard_layout_or_other_algorithms():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = simulate("rucb", "arxiv", 2000, 5, seed=3)
        part = simulate("rucb", "arxiv", 2000, 2, seed=3, run_start=3)
        simulate("rmed1", "arxiv", 2000, 5, seed=3)  # another algorithm in between
        again = simulate("rucb", "arxiv", 2000, 5, seed=3)
    assert np.array_equal(whole.regret[3:], part.regret)
    assert np.array_equal(whole.regret, again.regret)


def test_seed_and_params_change_the_stream_but_permutation_is_shared():
    from duelbench.engine.seeding import run_permutation, run_rng

    a = run_rng(0, "arxiv", "rucb", {"alpha": 0.51}, 0).random(4)
    b = run_rng(0, "arxiv", "rucb", {"alpha": 0.6}, 0).random(4)
    c = run_rng(1, "arxiv", "rucb", {"alpha": 0.51}, 0).random(4)
    assert not np.array_equal(a, b) and not np.array_equal(a, c)
    assert np.array_equal(run_permutation(0, "arxiv", 7, 6), run_permutation(0, "arxiv", 7, 6))
    assert not np.array_equal(run_permutation(0, "arxiv", 7, 16), run_permutation(0, "sushi", 7, 16))


def test_result_roundtrip(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = simulate("random", "arxiv", 500, 3, seed=1)
    r.to_npz(tmp_path / "x.npz")
    back = SimulationResult.from_npz(tmp_path / "x.npz")
    assert np.array_equal(back.regret, r.regret) and back.params == r.params and back.dataset == "arxiv"
