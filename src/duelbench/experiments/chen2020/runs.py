"""One run of a Chen et al. 2020 cell: the sample function of every study's families.

:func:`run_cell` is ``function(job, a, b)`` of :mod:`duelbench.experiments.samples`: rows
``a … b − 1`` are runs ``a … b − 1`` of the cell, run ``i`` drawing every random number from
``SeedSequence(job["seed"], spawn_key=(cell key, i))`` with the cell key the first 40 bits of the
hash of the job (:func:`cell_key`; reading C2), so a run depends on (job, ``i``) only.  The
oracle study's rows are random constrained cases of Eq. (6) drawn the same way.

Columns (one value per run; 0/1 for booleans, NaN where a quantity does not apply):

* Borda (``pac``, ``exact``): ``samples`` (duels, self-duels included: the paper's sample
  complexity), ``real_duels``, ``self_duels``, ``epochs`` (q of the return, 1 for Algorithm 1
  and V2), ``samples_through_qstar`` (samples of epochs 1 … q*), ``capped``, ``exact`` (output =
  the Borda winner), ``eps_optimal`` (B(output) ≥ B(M*) − ε, Theorem 1), ``borda_gap``
  (B(M*) − B(output)).
* Condorcet (``car_cond``, ``car_parallel``): ``samples``, ``rounds``, ``epochs``, ``checks``,
  ``oracle_calls``, ``capped``, ``correct`` (output = the Condorcet winner), ``answered_by``
  (CAR-Parallel's k), ``errors`` (CAR-Verify instances retired on *error*).
* ``oracles``: ``lp``, ``exhaustive`` (NaN past the enumeration limit), ``x_matchings`` /
  ``y_matchings`` (admissible matchings of each side, by exact counting), and per FPTAS budget
  ``(outer, fw)`` and step rule ``st``: ``fptas_<outer>_<fw>_<st>`` and
  ``calls_<outer>_<fw>_<st>`` (matching-oracle calls).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping

import numpy as np

#: FPTAS step rules run in the oracle study (:func:`duelbench.cpe.fptas.step_size`).
STEPS = ("paper", "diameter")


def cell_key(job: Mapping) -> int:
    """The first 40 bits of the job's hash: the cell's part of every run's seed (C2)."""
    from ..job_identity import layout_of

    return int(layout_of(job), 16)


def run_seed(job: Mapping, i: int) -> np.random.SeedSequence:
    """The seed of run ``i`` of the cell ``job``."""
    return np.random.SeedSequence(int(job["seed"]), spawn_key=(cell_key(job), int(i)))


@functools.lru_cache(maxsize=64)
def _instance(spec_json: str):
    from duelbench.cpe import families

    spec = json.loads(spec_json)
    family = spec["family"]
    if family == "toy":
        return families.toy()
    if family == "width_example":
        return families.width_example()
    params = {k: spec[k] for k in ("n", "ell", "s", "margin", "density") if k in spec}
    require = "condorcet" if family == "planted_condorcet" else "both"
    inst, _ = families.seeded(family, params, int(spec["instance_seed"]), int(spec.get("draw", 0)), require)
    return inst


def instance(spec: Mapping):
    """The :class:`~duelbench.cpe.instance.BipartiteInstance` of a recipe (C1): the toy, or draw
    ``draw`` of a family seeded by ``instance_seed`` (F1 instances need both a unique Borda and a
    strict Condorcet winner, F2 instances a strict Condorcet winner)."""
    return _instance(json.dumps(dict(spec), sort_keys=True))


@functools.lru_cache(maxsize=64)
def _truths(spec_json: str):
    from duelbench.cpe import hardness

    inst = _instance(spec_json)
    spec = json.loads(spec_json)
    borda = None if spec["family"] == "planted_condorcet" else hardness.borda_truth(inst)
    return inst, borda, hardness.condorcet_winner(inst)


def truths(spec: Mapping):
    """(instance, Borda ground truth or None for F2, Condorcet winner or None)."""
    return _truths(json.dumps(dict(spec), sort_keys=True))


def _borda_row(job: Mapping, i: int) -> dict:
    from duelbench.cpe.borda import clucb_borda_exact, clucb_borda_pac

    inst, truth, _ = truths(job["instance"])
    opts = dict(seed=run_seed(job, i), sampler=job["sampler"], radius_count=job["radius_count"],
                self_duel=job["self_duel"], max_samples=int(job["max_samples"]))
    if job["algorithm"] == "pac":
        r = clucb_borda_pac(inst, float(job["delta"]), float(job["eps"]), **opts)
    else:
        r = clucb_borda_exact(inst, float(job["delta"]), variant=job["variant"], **opts)
    best = float(truth.w[truth.winner].sum()) / inst.ell
    if r.output is None:
        gap, exact = np.nan, False
    else:
        gap = best - float(truth.w[r.output].sum()) / inst.ell
        exact = sorted(r.output.tolist()) == sorted(truth.winner.tolist())
    eps = float(job.get("eps", 0.0))
    return {"samples": r.samples, "real_duels": r.real_duels, "self_duels": r.self_duels, "epochs": r.epochs,
            "samples_through_qstar": int(sum(r.samples_per_epoch[: truth.q_star])), "capped": int(r.capped),
            "exact": int(exact), "eps_optimal": int(r.output is not None and gap <= eps + 1e-12),
            "borda_gap": gap}


def _oracle_function(job: Mapping, fptas=None):
    from duelbench.cpe.fptas import fptas_oracle
    from duelbench.cpe.oracles import lp_value

    if job["oracle"] == "lp" and fptas is None:
        return lp_value
    outer, fw = fptas if fptas is not None else job["fptas"]
    return fptas_oracle(int(outer), int(fw), step="diameter")


def _condorcet_row(job: Mapping, i: int) -> dict:
    from duelbench.cpe.condorcet import car_cond, car_parallel

    inst, _, winner = truths(job["instance"])
    oracle = _oracle_function(job)
    opts = dict(check_every="round" if job["schedule"] == "round" else "geometric", ratio=float(job["ratio"]),
                max_rounds=int(job["max_rounds"]))
    nan = np.nan
    if job["algorithm"] == "car_cond":
        r = car_cond(inst, float(job["delta"]), run_seed(job, i), oracle, **opts)
        row = {"samples": r.samples, "rounds": r.rounds, "epochs": r.epochs, "checks": r.checks,
               "oracle_calls": r.oracle_calls, "capped": int(r.capped), "answered_by": nan, "errors": nan}
    else:
        r = car_parallel(inst, float(job["delta"]), run_seed(job, i), oracle, **opts)
        row = {"samples": r.samples, "rounds": r.steps, "epochs": nan, "checks": nan, "oracle_calls": nan,
               "capped": int(r.capped), "answered_by": r.answered_by if r.answered_by is not None else nan,
               "errors": len(r.errors)}
    row["correct"] = int(r.output is not None and winner is not None
                         and sorted(np.asarray(r.output).tolist()) == sorted(winner.tolist()))
    return row


def oracle_case(job: Mapping, i: int):
    """Case ``i`` of an oracle cell: (instance, A1, R1, A2, R2, Q) on ``K_{n,ℓ}``.

    The instance is an F2 planted-Condorcet draw (margin 0.3); each side's admissible sets are
    drawn around its own uniform maximum matching ``M0``: ``A`` up to ``⌊ℓ/2⌋`` of its edges and
    ``R`` up to two edges outside it, so both polytopes are non-empty; ``Q`` perturbs every
    comparable ordered entry of ``P`` by ``U[−0.1, 0.1]`` independently, clipped to [0, 1], with
    1/2 on the diagonal (as CAR-Cond's bound matrices are not consistent either)."""
    from duelbench.cpe import families
    from duelbench.cpe.matching import MatchingCounter

    rng = np.random.default_rng(run_seed(job, i))
    # strict by construction (F-D4 of duelbench.cpe.families): no enumeration of K_{12,12}'s 12! matchings
    inst, _ = families.draw("planted_condorcet", {"n": int(job["n"]), "ell": int(job["ell"]), "margin": 0.3}, rng,
                            None)
    counter = MatchingCounter(inst)
    sides = []
    for _ in range(2):
        m0 = counter.sample(rng)
        a = rng.choice(m0, size=int(rng.integers(0, inst.ell // 2 + 1)), replace=False)
        outside = np.setdiff1d(np.arange(inst.m), m0)
        r = rng.choice(outside, size=min(len(outside), int(rng.integers(0, 3))), replace=False)
        sides.append((sorted(int(e) for e in a), sorted(int(e) for e in r)))
    Q = np.where(inst.comparable_mask, np.clip(inst.P + rng.uniform(-0.1, 0.1, inst.P.shape), 0.0, 1.0), 0.0)
    np.fill_diagonal(Q, 0.5)
    return inst, sides[0][0], sides[0][1], sides[1][0], sides[1][1], Q


def _count(inst, forced, forbidden) -> int:
    from duelbench.cpe.matching import enumerate_matchings

    try:
        return len(enumerate_matchings(inst, forced, forbidden, limit=100_000))
    except ValueError:
        return -1


def _oracle_row(job: Mapping, i: int) -> dict:
    from duelbench.cpe.exhaustive import exhaustive_value
    from duelbench.cpe.fptas import condorcet_fptas
    from duelbench.cpe.oracles import lp_value

    inst, A1, R1, A2, R2, Q = oracle_case(job, i)
    nx, ny = _count(inst, A1, R1), _count(inst, A2, R2)
    limit = int(job["exhaustive_limit"])
    row = {"lp": lp_value(inst, A1, R1, A2, R2, Q), "x_matchings": nx, "y_matchings": ny,
           "exhaustive": (exhaustive_value(inst, A1, R1, A2, R2, Q, limit=limit)
                          if 0 <= nx <= limit and 0 <= ny <= limit else np.nan)}
    for outer, fw in job["fptas"]:
        for st in STEPS:
            f = condorcet_fptas(inst, A1, R1, A2, R2, Q, outer=int(outer), fw=int(fw), step=st)
            row[f"fptas_{outer}_{fw}_{st}"] = f.value
            row[f"calls_{outer}_{fw}_{st}"] = f.matching_calls
    return row


def run_cell(job: Mapping, a: int, b: int) -> dict[str, np.ndarray]:
    """Rows ``a … b − 1`` of the cell ``job`` (columns: the module docstring), with ``sample``."""
    kind = job["algorithm"]
    row = {"pac": _borda_row, "exact": _borda_row, "car_cond": _condorcet_row, "car_parallel": _condorcet_row,
           "oracles": _oracle_row}.get(kind)
    if row is None:
        raise ValueError(f"chen2020: unknown algorithm {kind!r} in a cell's job")
    rows = [row(job, i) for i in range(a, b)]
    out = {"sample": np.arange(a, b, dtype=np.int64)}
    for k in rows[0]:
        out[k] = np.array([r[k] for r in rows], dtype=np.float64)
    return out
