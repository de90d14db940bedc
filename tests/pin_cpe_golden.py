"""Pin (or re-pin) the golden runs of the combinatorial pure-exploration algorithms of Chen, Du,
Huang & Zhao (ICML 2020): CLUCB-Borda-PAC (Algorithm 1), CLUCB-Borda-Exact (Algorithm 5, variants
V0, V1, V2), CAR-Cond (Algorithm 2), CAR-Verify (Algorithm 4) and CAR-Parallel (Algorithm 3).

``tests/golden/cpe/chen2020.json`` records, for each case of :data:`CASES` (instance, confidence,
options, seed), the run's summary numbers: output, sample counts, rounds/epochs/steps, checks
and oracle calls, per-edge decision rounds, and for the Borda runs the sha256 of the per-sample
trace ``(z_t, e′, 2X)``.  ``tests/test_cpe_golden.py`` recomputes every case and fails on any
difference.

Usage
-----
::

    python tests/pin_cpe_golden.py           # write the file when new or changed
    python tests/pin_cpe_golden.py --check   # report differences, write nothing (exit 1 on any)

Re-pin only for a deliberate change of behaviour, committed together with that change.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from duelbench.cpe.borda import clucb_borda_exact, clucb_borda_pac
from duelbench.cpe.condorcet import car_cond, car_parallel, car_verify

from test_cpe_borda import A, C, F, G
from test_cpe_condorcet import k22, planted

GOLDEN_FILE = Path(__file__).resolve().parent / "golden" / "cpe" / "chen2020.json"
FORMAT = 1


def _instances() -> dict:
    """The pinned instances by name (built by the CPE test modules' deterministic constructors)."""
    return {"borda-K4,2": A, "borda-two-arms": F, "borda-sparse": C, "borda-K3,2-fixed": G,
            "planted-3x2-s0": planted(3, 2, 0.3, 0)[0], "planted-3x2-s3": planted(3, 2, 0.4, 3)[0],
            "planted-3x1-s0": planted(3, 1, 0.4, 0)[0], "k22": k22(0.8, 0.3)}


#: (case name, algorithm, instance name, delta, keyword options, seed)
CASES = (
    ("pac-exact", "pac", "borda-K4,2", 0.1, dict(epsilon=0.3), 5),
    ("pac-biased-m-half", "pac", "borda-sparse", 0.2, dict(epsilon=0.6, sampler="biased", radius_count="m",
                                                           self_duel="half"), 1),
    ("exact-V0", "V0", "borda-K3,2-fixed", 0.3, dict(max_samples=4000), 3),
    ("exact-V0-biased", "V0", "borda-K3,2-fixed", 0.3, dict(sampler="biased", max_samples=3000), 2),
    ("exact-V0-two-arms", "V0", "borda-two-arms", 0.5, {}, 0),
    ("exact-V1", "V1", "borda-K4,2", 0.1, dict(max_samples=3000), 4),
    ("exact-V1-two-arms-half", "V1", "borda-two-arms", 0.5, dict(self_duel="half"), 1),
    ("exact-V2", "V2", "borda-K3,2-fixed", 0.5, {}, 2),
    ("cond-every-round", "cond", "k22", 0.2, {}, 3),
    ("cond-geometric", "cond", "planted-3x2-s0", 0.1, dict(check_every="geometric"), 0),
    ("cond-geometric-capped", "cond", "planted-3x1-s0", 0.1, dict(check_every="geometric", ratio=2.0,
                                                                   max_rounds=20), 7),
    ("verify", "verify", "planted-3x2-s3", 0.002, dict(check_every="geometric", ratio=1.5), 4),
    ("parallel", "parallel", "planted-3x2-s3", 0.005, dict(check_every="geometric", ratio=2.0), 21),
)


def _list(a):
    return None if a is None else [int(x) for x in a]


def run_case(algorithm: str, inst, delta: float, options: dict, seed: int) -> dict:
    """Run one case and return its summary numbers (JSON-ready)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    if algorithm in ("pac", "V0", "V1", "V2"):
        opts = dict(options)
        if algorithm == "pac":
            r = clucb_borda_pac(inst, delta, opts.pop("epsilon"), seed=seed, record=True, **opts)
        else:
            r = clucb_borda_exact(inst, delta, variant=algorithm, seed=seed, record=True, **opts)
        return dict(output=_list(r.output), last=_list(r.last), samples=r.samples, real_duels=r.real_duels,
                    self_duels=r.self_duels, epochs=r.epochs, samples_per_epoch=list(r.samples_per_epoch),
                    capped=r.capped, trace_sha256=hashlib.sha256(r.trace.tobytes()).hexdigest())
    if algorithm == "cond":
        r = car_cond(inst, delta, rng, **options)
        return dict(output=_list(r.output), samples=r.samples, rounds=r.rounds, epochs=r.epochs, checks=r.checks,
                    oracle_calls=r.oracle_calls, capped=r.capped, exhausted=r.exhausted, rejected=_list(r.rejected),
                    decided_at=_list(r.decided_at))
    if algorithm == "verify":
        r = car_verify(inst, delta, rng, **options)
        return dict(output=_list(r.output), error=r.error, hypothesis=_list(r.hypothesis), samples=r.samples,
                    cond_samples=r.cond_samples, verify_samples=r.verify_samples, steps=r.steps,
                    cond_rounds=r.cond.rounds, cond_oracle_calls=r.cond.oracle_calls)
    if algorithm == "parallel":
        r = car_parallel(inst, delta, seed, **options)
        return dict(output=_list(r.output), samples=r.samples, steps=r.steps, answered_by=r.answered_by,
                    samples_per_instance=list(r.samples_per_instance), errors=list(r.errors),
                    failed=list(r.failed), answer_samples=r.answer.samples)
    raise ValueError(f"unknown algorithm {algorithm!r}")


def compute_golden(cases=CASES) -> dict:
    """Every case's definition and summary."""
    insts = _instances()
    out = []
    for name, algorithm, inst_name, delta, options, seed in cases:
        out.append(dict(name=name, algorithm=algorithm, instance=inst_name, delta=delta, options=options, seed=seed,
                        result=run_case(algorithm, insts[inst_name], delta, options, seed)))
    return {"format": FORMAT, "cases": out}


def compare(pinned: dict, fresh: dict) -> list[str]:
    """Readable differences between a pinned and a fresh golden record (empty when equal)."""
    diffs = []
    if pinned.get("format") != fresh["format"]:
        diffs.append(f"format {pinned.get('format')} != {fresh['format']}")
    old = {c["name"]: c for c in pinned.get("cases", [])}
    for case in fresh["cases"]:
        was = old.get(case["name"])
        if was is None:
            diffs.append(f"case {case['name']!r} not pinned")
            continue
        for key, value in case["result"].items():
            if was["result"].get(key) != value:
                diffs.append(f"case {case['name']!r}: {key} pinned {was['result'].get(key)!r}, now {value!r}")
        for key in ("algorithm", "instance", "delta", "options", "seed"):
            if was[key] != case[key]:
                diffs.append(f"case {case['name']!r}: definition {key} differs")
    diffs += [f"case {n!r} pinned but no longer computed" for n in old if n not in {c['name'] for c in fresh['cases']}]
    return diffs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report differences, write nothing")
    args = parser.parse_args(argv)
    fresh = compute_golden()
    if GOLDEN_FILE.exists():
        diffs = compare(json.loads(GOLDEN_FILE.read_text(encoding="utf-8")), fresh)
    else:
        diffs = ["no golden file"]
    for d in diffs:
        print(d)
    if args.check:
        return 1 if diffs else 0
    if diffs:
        GOLDEN_FILE.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN_FILE.write_text(json.dumps(fresh, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {GOLDEN_FILE}")
    else:
        print("unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
