import warnings

import numpy as np
import pytest

import duelbench
from duelbench.engine.checkpoints import default_checkpoints, validate_checkpoints
from duelbench.engine.shards import run_shard, shard_path, shard_ranges

from _engine_helpers import MULTISOL


def test_simulate_reproduces_a_workflow_shard_bit_for_bit(tmp_path):
    out = tmp_path / shard_path("quick", "sushi", "rmed1", {}, 4000, 2, 5, root="results")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run_shard(out, dataset="sushi", algorithm="rmed1", params={}, horizon=4000, run_start=2, run_stop=5, seed=0,
                  fidelity="quick", quiet=True)
        shard = duelbench.SimulationResult.from_npz(out)
        api = duelbench.simulate("rmed1", "sushi", 4000, 3, seed=0, run_start=2)
    assert np.array_equal(shard.regret, api.regret)
    assert np.array_equal(shard.checkpoints, api.checkpoints)
    assert np.array_equal(shard.regrets["condorcet"], api.regrets["condorcet"])


def test_simulate_contract():
    r = duelbench.simulate("rucb", duelbench.load_matrix("cyclic"), 1000, 3)
    assert r.checkpoints.dtype == np.int64 and r.checkpoints[-1] == 1000
    assert r.regret.shape == (3, r.checkpoints.size)
    assert np.all(np.diff(r.regret, axis=1) >= 0)  # cumulative regret is non-decreasing
    assert np.allclose(r.regret_of("copeland_zoghi"), 2 * r.regret)  # no ties: proportional
    assert np.allclose(r.regret_of("copeland_wu"), r.regret)
    assert np.all(np.isfinite(r.regrets["condorcet"]))  # cyclic has a Condorcet winner


def test_condorcet_regret_is_nan_without_condorcet_winner():
    r = duelbench.simulate("random", MULTISOL, 200, 2)
    assert np.all(np.isnan(r.regrets["condorcet"])) and np.all(np.isfinite(r.regret))


def test_params_override_and_validation():
    r = duelbench.simulate("rucb", "cyclic", 300, 1, alpha=0.8)
    assert r.params == {"alpha": 0.8}
    with pytest.raises(ValueError, match="no parameter"):
        duelbench.simulate("rucb", "cyclic", 300, 1, beta=1.0)
    with pytest.raises(ValueError, match="alpha must be > 1/2"):
        duelbench.simulate("rucb", "cyclic", 300, 1, alpha=0.3)
    with pytest.raises(KeyError, match="unknown algorithm"):
        duelbench.simulate("nope", "cyclic", 300, 1)


def test_random_regret_matches_its_expectation():
    """Random's expected per-step regret is the mean of r over all K² ordered pairs."""
    P = duelbench.load_matrix("multisol")
    r = duelbench.simulate("random", P, 20000, 4)
    expected = P.regret_matrix("copeland").mean() * 20000
    assert abs(r.regret[:, -1].mean() - expected) < 0.02 * expected


def test_checkpoints_and_shard_ranges():
    c = default_checkpoints(10**6)
    assert c[0] == 1 and c[-1] == 10**6 and np.all(np.diff(c) > 0) and 500_000 in c
    assert shard_ranges(25, 10) == [(0, 10), (10, 20), (20, 25)]
    with pytest.raises(ValueError):
        duelbench.simulate("rucb", "cyclic", 100, 1, checkpoints=[10, 50])


@pytest.mark.parametrize("bad", [[10, 10, 100], [50, 10, 100], [0, 100], [-5, 100]])
def test_checkpoints_must_be_strictly_increasing_positive(bad):
    with pytest.raises(ValueError, match="strictly increasing positive"):
        validate_checkpoints(bad, 100)
    with pytest.raises(ValueError, match="strictly increasing positive"):
        duelbench.simulate("rucb", "cyclic", 100, 1, checkpoints=bad)


def test_accepted_checkpoints_give_non_decreasing_regret_columns():
    r = duelbench.simulate("rucb", "cyclic", 500, 2, checkpoints=[1, 2, 3, 50, 499, 500])
    for kind in ("copeland", "copeland_zoghi", "copeland_wu"):
        assert np.all(np.diff(r.regret_of(kind), axis=1) >= 0)


def test_copeland_normalisations_differ_on_a_tied_matrix():
    """ArXiv's tie (arms 4 and 6 at 0.50) makes losses- and score-based Copeland regret differ."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = duelbench.simulate("random", "arxiv", 3000, 2)
    assert not np.allclose(r.regret_of("copeland_wu"), r.regret)
