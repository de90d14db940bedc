"""Pin (or re-pin) the golden trajectories of the registered algorithms.

A golden file ``tests/golden/<algorithm>.json`` records, for a fixed set of cases
(:data:`CASES`: dataset, global seed, horizon, run indices, arm permutation on) and the
algorithm's default parameters, what :func:`duelbench.simulate` returns for each run:

* the first :data:`FIRST_PAIRS` chosen pairs, explicitly (original arm labels), so that a
  difference in the early steps is readable in a diff;
* the sha256 of the whole pair sequence, and of its prefixes up to the steps
  :data:`PREFIX_POINTS` (to locate a later first difference);
* the cumulative regret at every checkpoint for every recorded kind, as ``float.hex()`` strings
  (bit-exact float64; ``"nan"`` for the Condorcet regret of an instance without a Condorcet
  winner).

Algorithms that need the horizon in advance (``needs_horizon``, e.g. Copeland SAVAGE) are run
by the engine once per checkpoint; their regret and pairs are pinned as ``simulate`` returns
them.  ``tests/test_golden_trajectories.py`` regenerates the pinned cases and fails on any
difference.

Usage
-----
::

    python tests/pin_golden.py                  # every registered algorithm
    python tests/pin_golden.py rucb dts         # only these algorithms
    python tests/pin_golden.py --check [ALG …]  # report differences, write nothing

For each algorithm the script prints ``new``, ``unchanged`` or the list of differences
(case, run, first differing step, first differing checkpoint) and writes the file only when it
is new or changed.  ``--check`` exits with status 1 when any pinned file differs or is missing.

Re-pin only for a deliberate change of behaviour (a corrected algorithm, a new reading of a
paper, a new random-stream contract), and commit the updated golden files together with that
change, so that the review sees both.  A new algorithm needs its golden file too.

Encoding
--------
The pair hash is the sha256 of the recorded pairs as little-endian int64, shape ``(T, 2)``,
C order; prefix hashes are the first 16 hex digits of the sha256 of ``pairs[:n]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import warnings
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
GOLDEN_DIR = Path(__file__).resolve().parent / "golden"

# Same single-threaded environment as the test suite (tests/conftest.py); values already set win.
for _key, _value in {
    "NUMBA_CACHE_DIR": str(CHECKOUT / ".numba_cache"),
    "NUMBA_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}.items():
    os.environ.setdefault(_key, _value)

import numpy as np  # noqa: E402

FORMAT = 1
#: Steps pinned explicitly at the start of every run.
FIRST_PAIRS = 100
#: Steps n at which the sha256 of ``pairs[:n]`` is pinned (those ≤ the horizon).
PREFIX_POINTS = (100, 300, 1000, 3000, 10000, 30000, 100000)

#: The pinned cases (every golden file pins exactly these; the cheap small instances pin more
#: runs, so that rarely taken branches such as tie-breaks among several winners are reached).  Horizons pass the early phases of
#: the algorithms (RMED-type initial rounds, SCB's squaring-trick phases r = 1…4 end at step
#: 65 812, so "arxiv" also enters phase 5), while the whole test stays a few seconds long.
CASES = (
    # Komiyama et al. (2016) Table 3(d): K = 6, Condorcet winner, one exact tie (mu_46 = 0.50).
    {"name": "arxiv", "dataset": "arxiv", "seed": 0, "horizon": 70000, "permute": True, "runs": [0, 1, 7]},
    # Table 3(c): K = 5, three Copeland winners, no Condorcet winner.
    {"name": "multisol", "dataset": "multisol", "seed": 3, "horizon": 10000, "permute": True,
     "runs": [0, 1, 2, 3, 4, 5, 7]},
    # Table 3(a): K = 16, Condorcet winner.
    {"name": "sushi", "dataset": "sushi", "seed": 0, "horizon": 20000, "permute": True, "runs": [0, 1, 7]},
    # Table 3(f): K = 5, no Condorcet winner, entries close to 1/2.
    {"name": "mslr5_noncondorcet_printed", "dataset": "mslr5_noncondorcet_printed", "seed": 11,
     "horizon": 20000, "permute": True, "runs": [0, 1, 2, 7]},
    # Table 2: K = 4, cyclic (no Condorcet winner); Table 3(b): K = 5, small gaps.
    {"name": "cyclic", "dataset": "cyclic", "seed": 5, "horizon": 8000, "permute": True, "runs": [0, 1, 2, 3, 7]},
    {"name": "gap", "dataset": "gap", "seed": 7, "horizon": 8000, "permute": True, "runs": [0, 1, 2, 3, 7]},
)
#: Cases every golden file must pin (the instances named in the test's documentation).
REQUIRED_CASE_NAMES = frozenset({"arxiv", "multisol", "sushi", "mslr5_noncondorcet_printed"})
#: The keys of a case that define it (the rest of a pinned case is its result).
DEFINITION_KEYS = ("name", "dataset", "seed", "horizon", "permute", "runs")

REPIN_HINT = (
    "If this change of behaviour is deliberate, re-pin with `python tests/pin_golden.py {alg}` and "
    "commit the updated tests/golden/{alg}.json in the same commit as the change."
)


def golden_path(algorithm: str) -> Path:
    """``tests/golden/<algorithm>.json``."""
    return GOLDEN_DIR / f"{algorithm}.json"


def pairs_sha256(pairs: np.ndarray) -> str:
    """sha256 of ``pairs`` as little-endian int64, C order."""
    return hashlib.sha256(np.ascontiguousarray(pairs, dtype="<i8").tobytes()).hexdigest()


def case_definition(case: dict) -> dict:
    """The defining keys of a (pinned or configured) case."""
    return {k: case[k] for k in DEFINITION_KEYS}


def simulate_case(algorithm: str, case: dict) -> dict:
    """Run one case with the default parameters; return its pinned form."""
    import duelbench
    from duelbench.data.registry import load_matrix
    from duelbench.engine.result import RECORDED_KINDS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        P = load_matrix(case["dataset"])
        out = {**case_definition(case), "K": int(P.K), "matrix_sha256": P.sha256, "checkpoints": None, "results": []}
        for r in case["runs"]:
            res = duelbench.simulate(algorithm, case["dataset"], case["horizon"], 1, seed=case["seed"], run_start=r,
                                     permute=case["permute"], record_pairs=True)
            ckpts = [int(c) for c in res.checkpoints]
            if out["checkpoints"] is None:
                out["checkpoints"] = ckpts
            elif out["checkpoints"] != ckpts:
                raise RuntimeError(f"{algorithm}: checkpoints differ between runs of case {case['name']!r}")
            pairs = np.asarray(res.pairs[0])
            out["results"].append({
                "run": int(r),
                "first_pairs": [[int(i), int(j)] for i, j in pairs[:FIRST_PAIRS]],
                "pairs_sha256": pairs_sha256(pairs),
                "prefix_sha256": {str(n): pairs_sha256(pairs[:n])[:16] for n in PREFIX_POINTS if n <= len(pairs)},
                "regret": {kind: [float(v).hex() for v in res.regrets[kind][0]] for kind in RECORDED_KINDS},
            })
    return out


def compute_golden(algorithm: str, cases=CASES) -> dict:
    """The golden document of ``algorithm`` for ``cases``."""
    from duelbench.algorithms.registry import canonical_params, get_algorithm

    spec = get_algorithm(algorithm)
    return {
        "format": FORMAT,
        "algorithm": algorithm,
        "params": canonical_params(algorithm, {}),
        "needs_horizon": bool(spec.needs_horizon),
        "encoding": {
            "pairs_sha256": "sha256 of the recorded pairs (original arm labels) as little-endian int64, shape (T, 2)",
            "prefix_sha256": "first 16 hex digits of the sha256 of pairs[:n]",
            "regret": "cumulative pseudo-regret at each checkpoint, float.hex() of the float64 value",
        },
        "how_to_repin": f"python tests/pin_golden.py {algorithm}",
        "cases": [simulate_case(algorithm, dict(c)) for c in cases],
    }


# --------------------------------------------------------------------------- comparison
def _first_pair_difference(pinned: dict, fresh: dict) -> str | None:
    a, b = pinned["first_pairs"], fresh["first_pairs"]
    for t, (p, q) in enumerate(zip(a, b), start=1):
        if list(p) != list(q):
            return f"first differing step t = {t}: pinned pair {tuple(p)}, now {tuple(q)}"
    if len(a) != len(b):
        return f"{len(a)} first pairs pinned, {len(b)} now"
    if pinned["pairs_sha256"] == fresh["pairs_sha256"]:
        return None
    lo = len(a)
    for n in sorted(int(k) for k in pinned.get("prefix_sha256", {})):
        if pinned["prefix_sha256"].get(str(n)) != fresh["prefix_sha256"].get(str(n)):
            return f"first {lo} pairs equal; first differing step in t = {lo + 1} … {n}"
        lo = n
    return f"first {lo} pairs equal; the pair sequences differ after step {lo} (sha256 differs)"


def _regret_difference(pinned: dict, fresh: dict, checkpoints: list) -> list[str]:
    msgs = []
    for kind in sorted(set(pinned["regret"]) | set(fresh["regret"])):
        a, b = pinned["regret"].get(kind), fresh["regret"].get(kind)
        if a is None or b is None:
            msgs.append(f"regret kind {kind!r} {'not pinned' if a is None else 'no longer recorded'}")
            continue
        for k, (x, y) in enumerate(zip(a, b)):
            if x != y:
                t = checkpoints[k] if k < len(checkpoints) else "?"
                msgs.append(f"{kind} regret first differs at checkpoint t = {t}: pinned {float.fromhex(x)!r} "
                            f"({x}), now {float.fromhex(y)!r} ({y})")
                break
        else:
            if len(a) != len(b):
                msgs.append(f"{kind} regret: {len(a)} checkpoints pinned, {len(b)} now")
    return msgs


def compare(pinned: dict, fresh: dict) -> list[str]:
    """Human-readable differences between a pinned and a freshly computed golden document."""
    msgs = []
    if pinned.get("format") != fresh["format"]:
        msgs.append(f"golden format {pinned.get('format')!r}, expected {fresh['format']}")
        return msgs
    if pinned.get("params") != fresh["params"]:
        msgs.append(f"default parameters changed: pinned {pinned.get('params')}, now {fresh['params']}")
    if pinned.get("needs_horizon") != fresh["needs_horizon"]:
        msgs.append(f"needs_horizon changed: pinned {pinned.get('needs_horizon')}, now {fresh['needs_horizon']}")
    p_cases = {c["name"]: c for c in pinned.get("cases", [])}
    f_cases = {c["name"]: c for c in fresh["cases"]}
    for name in sorted(set(p_cases) - set(f_cases)):
        msgs.append(f"case {name!r}: pinned but not regenerated")
    for name in sorted(set(f_cases) - set(p_cases)):
        msgs.append(f"case {name!r}: not pinned")
    for name in [c["name"] for c in fresh["cases"] if c["name"] in p_cases]:
        pc, fc = p_cases[name], f_cases[name]
        where = f"case {name!r} (dataset {fc['dataset']}, seed {fc['seed']}, horizon {fc['horizon']})"
        if case_definition(pc) != case_definition(fc):
            msgs.append(f"{where}: definition changed: pinned {case_definition(pc)}, now {case_definition(fc)}")
            continue
        if (pc["K"], pc["matrix_sha256"]) != (fc["K"], fc["matrix_sha256"]):
            msgs.append(f"{where}: the dataset's matrix changed (K {pc['K']} -> {fc['K']}, sha256 "
                        f"{pc['matrix_sha256'][:12]}… -> {fc['matrix_sha256'][:12]}…)")
        if pc["checkpoints"] != fc["checkpoints"]:
            msgs.append(f"{where}: checkpoints changed: pinned {len(pc['checkpoints'])} points "
                        f"{pc['checkpoints'][:6]}…, now {len(fc['checkpoints'])} points {fc['checkpoints'][:6]}…")
        for pr, fr in zip(pc["results"], fc["results"]):
            run = f"{where}, run {fr['run']}"
            diff = _first_pair_difference(pr, fr)
            if diff is not None:
                msgs.append(f"{run}: pairs differ: {diff}")
            msgs.extend(f"{run}: {m}" for m in _regret_difference(pr, fr, fc["checkpoints"]))
    return msgs


# --------------------------------------------------------------------------- JSON layout
def _is_scalar(x) -> bool:
    return x is None or isinstance(x, (bool, int, float, str))


def _dumps(obj, level: int = 0) -> str:
    """JSON with one pair per cell, ten pairs / ten integers / four strings per line."""
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f"{inner}{json.dumps(k)}: {_dumps(v, level + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        if not obj:
            return "[]"
        is_pair = all(isinstance(x, list) and len(x) == 2 and all(isinstance(y, int) for y in x) for x in obj)
        if is_pair or all(_is_scalar(x) for x in obj):
            cells = [json.dumps(x, separators=(", ", ": ")) for x in obj]
            if not is_pair and len(", ".join(cells)) <= 80:
                return "[" + ", ".join(cells) + "]"
            per_line = 10 if (is_pair or all(isinstance(x, int) for x in obj)) else 4
            rows = [", ".join(cells[k:k + per_line]) for k in range(0, len(cells), per_line)]
            return "[\n" + ",\n".join(inner + r for r in rows) + "\n" + pad + "]"
        return "[\n" + ",\n".join(inner + _dumps(x, level + 1) for x in obj) + "\n" + pad + "]"
    return json.dumps(obj)


def write_golden(path: Path, doc: dict) -> None:
    text = _dumps(doc) + "\n"
    if json.loads(text) != doc:  # the layout must not change the content
        raise RuntimeError("golden JSON layout does not round-trip")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("algorithms", nargs="*", metavar="ALGORITHM",
                        help="registered algorithm names (default: all)")
    parser.add_argument("--check", action="store_true", help="report differences without writing")
    args = parser.parse_args(argv)

    from duelbench.algorithms.registry import list_algorithms

    known = list_algorithms()
    names = args.algorithms or known
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error(f"unknown algorithm(s) {unknown}; registered: {', '.join(known)}")
    status = 0
    for name in names:
        path = golden_path(name)
        fresh = compute_golden(name)
        if not path.exists():
            print(f"{name}: new ({len(fresh['cases'])} cases) -> {path.relative_to(CHECKOUT)}"
                  + (" [not written: --check]" if args.check else ""))
            status = 1 if args.check else status
            if not args.check:
                write_golden(path, fresh)
            continue
        pinned = json.loads(path.read_text(encoding="utf-8"))
        diffs = compare(pinned, fresh)
        if not diffs and pinned == fresh:
            print(f"{name}: unchanged")
            continue
        print(f"{name}: changed" + (" [not written: --check]" if args.check else f" -> {path.relative_to(CHECKOUT)}"))
        for d in diffs or ["metadata only"]:
            print(f"  - {d}")
        if args.check:
            status = 1
        else:
            write_golden(path, fresh)
    return status


if __name__ == "__main__":
    sys.exit(main())
