"""A new algorithm is one file plus a name: plug-in discovery, parameters, code hashes."""

import os
import subprocess
import sys
import textwrap

import pytest

from duelbench.algorithms import registry

TOY = textwrap.dedent('''
    """Toy plug-in: always compares the first two arms, with a parameter that is never used."""
    from duelbench.algorithms.registry import AlgorithmSpec


    class FirstTwo:
        def __init__(self, K, horizon, rng, gamma):
            self.K = K
            self.gamma = gamma
            self.updates = 0

        def select(self, t):
            return 0, 1

        def update(self, i, j, i_won, t):
            self.updates += 1


    ALGORITHM = AlgorithmSpec(name="toy_first_two", title="Toy", reference="test", defaults={"gamma": 2.0},
                              policy=FirstTwo)
''')

SCRIPT = textwrap.dedent('''
    import numpy as np, duelbench
    from duelbench.algorithms.registry import param_hash, source_hash
    assert "toy_first_two" in duelbench.list_algorithms()
    P = np.array([[0.5, 0.7, 0.4], [0.3, 0.5, 0.9], [0.6, 0.1, 0.5]])
    r = duelbench.simulate("toy_first_two", P, 100, 2, permute=False, gamma=3.0)
    # arm 0 is the Copeland winner (L = 1 for all arms: a cycle) -> every pair has zero regret
    print(r.regret[:, -1].tolist(), r.params, param_hash("toy_first_two", {"gamma": 3.0}), source_hash("toy_first_two"))
''')


def test_plugin_folder_registers_and_runs_a_new_algorithm(tmp_path):
    (tmp_path / "toy.py").write_text(TOY)
    env = dict(os.environ, DUELBENCH_PLUGIN_PATH=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "[0.0, 0.0] {'gamma': 3.0}" in proc.stdout
    # a comment leaves the plug-in's source hash as it is; a code edit changes it
    first_hash = proc.stdout.split()[-1]

    def hash_after(text):
        (tmp_path / "toy.py").write_text(text)
        out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        return out.stdout.split()[-1]

    assert hash_after(TOY + "\n# edited\n") == first_hash
    assert hash_after(TOY.replace("self.updates += 1", "self.updates += 2")) != first_hash


def test_missing_plugin_folder_is_a_clear_error(tmp_path):
    env = dict(os.environ, DUELBENCH_PLUGIN_PATH=str(tmp_path / "nope"))
    proc = subprocess.run([sys.executable, "-c", "import duelbench; duelbench.list_algorithms()"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "DUELBENCH_PLUGIN_PATH" in proc.stderr


def test_builtin_algorithms_and_param_hash():
    names = registry.list_algorithms()
    assert {"random", "rucb", "rmed1", "dts"} <= set(names)
    assert registry.param_hash("rucb", {}) == registry.param_hash("rucb", {"alpha": 0.51})
    assert registry.param_hash("rucb", {"alpha": 0.6}) != registry.param_hash("rucb", {})
    assert len(registry.param_hash("rucb")) == 10
    assert registry.source_hash("rucb") != registry.source_hash("dts")


def test_duplicate_name_and_bad_spec_rejected():
    spec = registry.get_algorithm("rucb")
    clone = registry.AlgorithmSpec(**{**spec.__dict__, "module_file": "/elsewhere/rucb.py"})
    with pytest.raises(ValueError, match="registered twice"):
        registry.register(clone)
    with pytest.raises(ValueError, match="exactly one of steps=, run= or policy="):
        registry.AlgorithmSpec(name="x", title="x", reference="", defaults={})
    with pytest.raises(ValueError, match="invalid algorithm name"):
        registry.register(registry.AlgorithmSpec(name="Bad-Name", title="", reference="", defaults={}, policy=object))
