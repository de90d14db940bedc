"""Golden trajectories: every registered algorithm reproduces its pinned runs bit for bit.

For each algorithm, ``tests/golden/<algorithm>.json`` pins (see ``tests/pin_golden.py``) the
chosen pairs and the cumulative regret of every recorded kind, for the default parameters, on
the printed instances of Komiyama et al. (2016): ArXiv (Table 3(d), K = 6, Condorcet winner,
one exact tie), MultiSol (Table 3(c), K = 5, no Condorcet winner), Sushi (Table 3(a), K = 16),
MSLR non-Condorcet (Table 3(f), K = 5), Cyclic (Table 2) and Gap (Table 3(b)), with the arms
shuffled per run and several run indices.  Any change of behaviour — of an algorithm, of the
shared statistics, of the engine's random streams, permutations, checkpoints or regret
bookkeeping — changes some pinned value.

An algorithm without a golden file fails: every algorithm must pin its trajectories when it is
added (``python tests/pin_golden.py <algorithm>``).
"""

from __future__ import annotations

import json

import pytest

from duelbench.algorithms.registry import canonical_params, list_algorithms

import pin_golden
from pin_golden import CASES, FIRST_PAIRS, GOLDEN_DIR, REQUIRED_CASE_NAMES, case_definition, golden_path

ALGORITHMS = list_algorithms()


def _load(algorithm: str) -> dict:
    path = golden_path(algorithm)
    if not path.exists():
        pytest.fail(
            f"no golden trajectories for algorithm {algorithm!r}: pin them with "
            f"`python tests/pin_golden.py {algorithm}` and commit tests/golden/{algorithm}.json together "
            f"with the algorithm",
            pytrace=False,
        )
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_golden_file_pins_the_standard_cases(algorithm):
    """The file pins exactly the cases of ``tests/pin_golden.py`` for the current defaults."""
    pinned = _load(algorithm)
    hint = pin_golden.REPIN_HINT.format(alg=algorithm)
    assert pinned["format"] == pin_golden.FORMAT, hint
    assert pinned["algorithm"] == algorithm
    assert [case_definition(c) for c in pinned["cases"]] == [case_definition(c) for c in CASES], (
        f"{golden_path(algorithm).name} does not pin the standard cases of tests/pin_golden.py. {hint}")
    assert REQUIRED_CASE_NAMES <= {c["name"] for c in pinned["cases"]}
    assert pinned["params"] == canonical_params(algorithm, {}), (
        f"the default parameters of {algorithm!r} changed: pinned {pinned['params']}, registry "
        f"{canonical_params(algorithm, {})}. {hint}")
    for case in pinned["cases"]:
        assert len(case["results"]) == len(case["runs"]) >= 3
        assert case["checkpoints"][-1] == case["horizon"]
        for res in case["results"]:
            assert len(res["first_pairs"]) == min(FIRST_PAIRS, case["horizon"])
            for kind, values in res["regret"].items():
                assert len(values) == len(case["checkpoints"]), (case["name"], kind)
                [float.fromhex(v) for v in values]  # parseable


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_golden_trajectories(algorithm):
    """Regenerate the pinned cases (from the file's own case definitions) and compare exactly."""
    pinned = _load(algorithm)
    fresh = pin_golden.compute_golden(algorithm, [case_definition(c) for c in pinned["cases"]])
    diffs = pin_golden.compare(pinned, fresh)
    if diffs:
        shown = "\n  - ".join(diffs[:25]) + (f"\n  … and {len(diffs) - 25} more" if len(diffs) > 25 else "")
        pytest.fail(
            f"{algorithm}: behaviour differs from the golden trajectories in tests/golden/{algorithm}.json:\n"
            f"  - {shown}\n{pin_golden.REPIN_HINT.format(alg=algorithm)}",
            pytrace=False,
        )
    assert fresh == pinned  # nothing else differs either


def test_every_golden_file_belongs_to_a_registered_algorithm():
    stale = sorted(p.stem for p in GOLDEN_DIR.glob("*.json") if p.stem not in ALGORITHMS)
    assert not stale, f"golden files without a registered algorithm (renamed or removed?): {stale}"


def test_golden_comparison_reports_case_run_and_step():
    """The failure message names the case, the run and the first differing step or checkpoint."""
    pinned = _load(ALGORITHMS[0])
    altered = json.loads(json.dumps(pinned))
    case = altered["cases"][0]
    res = case["results"][1]
    i, j = res["first_pairs"][41]
    res["first_pairs"][41] = [j, i] if i != j else [i, (i + 1) % case["K"]]
    v = float.fromhex(res["regret"]["copeland"][-1])
    res["regret"]["copeland"][-1] = float.hex(v + max(abs(v) * 2.0**-52, 5e-324))
    msgs = pin_golden.compare(pinned, altered)
    where = f"case {case['name']!r}"
    assert any(where in m and f"run {res['run']}" in m and "t = 42" in m for m in msgs), msgs
    assert any("copeland regret first differs at checkpoint t = " + str(case["horizon"]) in m for m in msgs), msgs
    assert pin_golden.compare(pinned, pinned) == []
