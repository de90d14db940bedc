"""The runs of the Chen et al. 2020 studies as seeded sample families.

Every study is a set of *cells* (an algorithm with its options on one instance at one δ, ε, …);
a cell is a sample family of the experiment contract (:mod:`duelbench.experiments.samples`)
whose sample ``i`` is run ``i`` of the cell: a function of the cell's job and ``i`` only, so
its result is the same whichever shard, core or machine computes it (reading C2 of
``data/published/chen2020.yaml``).  The oracle study's samples are random constrained cases of
Eq. (6) instead of runs, and so are the cases of the Lemma 9 study (:mod:`.lemma9`, its own
sample function).  :func:`cells` lists them; :func:`plan_cells` turns them into shards.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from duelbench.config import ConfigError

from ..samples import plan_samples
from .lemma9 import run_case
from .runs import run_cell

#: Studies in report order (X0 and X8 have no sample families).
STUDIES = ("pac", "hardness", "epochs", "lower_bounds", "oracles", "lemma9", "car_cond", "parallel")


@dataclass(frozen=True)
class Cell:
    """One sample family: ``study``, a name unique within it, the job, the number of runs and the
    sample function (a run, :func:`.runs.run_cell`, or a Lemma 9 case, :func:`.lemma9.run_case`)."""
    study: str
    name: str
    job: dict
    runs: int
    function: Callable = run_cell

    @property
    def family(self) -> str:
        return f"{self.study}__{self.name}"


def _fmt(x: float) -> str:
    """A number in a family name, which the workflow's wildcards restrict to ``[A-Za-z0-9_]``:
    ``0.1`` -> ``0p1``, ``0.001`` -> ``1em03``."""
    text = f"{x:g}" if x >= 0.01 else f"{x:.0e}"
    return text.replace(".", "p").replace("-", "m")


def instance_spec(s: Mapping, name: str) -> dict:
    """The recipe of a named instance (section ``instances``) with the draw's seed (C1)."""
    try:
        spec = dict(s["instances"][name])
    except KeyError:
        raise ConfigError(f"chen2020: instance {name!r} is not declared in chen2020.instances "
                          f"(declared: {', '.join(s['instances'])})") from None
    spec.setdefault("draw", 0)
    return {"name": name, "instance_seed": int(s["instance_seed"]), **spec}


def _borda_job(s, study, inst, algorithm, delta, **extra) -> dict:
    b = s["borda"]
    return {"study": study, "algorithm": algorithm, "instance": inst, "delta": float(delta),
            "radius_count": b["radius_count"], "self_duel": b["self_duel"], "max_samples": int(b["max_samples"]),
            "seed": int(s["seed"]), **extra}


def _car_job(s, study, inst, algorithm, delta, **extra) -> dict:
    c = s["car"]
    job = {"study": study, "algorithm": algorithm, "instance": inst, "delta": float(delta), "oracle": c["oracle"],
           "schedule": c["schedule"], "ratio": float(c["ratio"]), "max_rounds": int(c["max_rounds"]),
           "seed": int(s["seed"])}
    job.update(extra)
    return job


def cells(s: Mapping) -> list[Cell]:
    """Every cell of every configured study, in study order."""
    out: list[Cell] = []
    if "pac" in s:
        p = s["pac"]
        for name in p["instances"]:
            inst = instance_spec(s, name)
            for eps in p["eps"]:
                for delta in p["delta"]:
                    out.append(Cell("pac", f"{name}_eps{_fmt(eps)}_d{_fmt(delta)}",
                                    _borda_job(s, "pac", inst, "pac", delta, eps=float(eps), sampler="exact"),
                                    int(p["runs"])))
                    # labelled cells beside the declared one (sampler bias test, readings C3-C4)
                    for key, change in (("biased", {"sampler": "biased"}), ("radius_m", {"radius_count": "m"}),
                                        ("self_duel_half", {"self_duel": "half"})):
                        if eps in p[key]["eps"] and delta in p[key]["delta"]:
                            job = _borda_job(s, "pac", inst, "pac", delta, eps=float(eps), sampler="exact")
                            out.append(Cell("pac", f"{name}_eps{_fmt(eps)}_d{_fmt(delta)}_{key}", {**job, **change},
                                            int(p["runs"])))
    if "hardness" in s:
        h = s["hardness"]
        hp = h["pac"]
        for name in hp["instances"]:
            inst = instance_spec(s, name)
            for eps in hp["eps"]:
                out.append(Cell("hardness", f"pac_{name}_eps{_fmt(eps)}",
                                _borda_job(s, "hardness", inst, "pac", hp["delta"], eps=float(eps), sampler="exact"),
                                int(hp["runs"])))
        he = h["exact"]
        for n, ell in he["graphs"]:
            for sv in he["s"]:
                for d in range(int(he["draws"])):
                    inst = {"name": f"k{n}{ell}_s{_fmt(sv)}_draw{d}", "instance_seed": int(s["instance_seed"]),
                            "family": "linear_utility", "n": int(n), "ell": int(ell), "s": float(sv), "draw": d}
                    out.append(Cell("hardness", f"exact_k{n}{ell}_s{_fmt(sv)}_draw{d}",
                                    _borda_job(s, "hardness", inst, "exact", he["delta"], variant=he["variant"],
                                               sampler="exact"), int(he["runs"])))
    if "epochs" in s:
        e = s["epochs"]
        for c in e["cells"]:
            inst = instance_spec(s, c["instance"])
            for v in e["variants"]:
                for delta in e["delta"]:
                    out.append(Cell("epochs", f"{c['instance']}_{v}_d{_fmt(delta)}",
                                    _borda_job(s, "epochs", inst, "exact", delta, variant=v, sampler="exact"),
                                    int(c["runs"])))
    if "lower_bounds" in s:
        lb = s["lower_bounds"]
        b = lb["borda"]
        for name in b["instances"]:
            inst = instance_spec(s, name)
            for delta in b["delta"]:
                out.append(Cell("lower_bounds", f"borda_{name}_{b['variant']}_d{_fmt(delta)}",
                                _borda_job(s, "lower_bounds", inst, "exact", delta, variant=b["variant"],
                                           sampler="exact"), int(b["runs"])))
        c = lb["condorcet"]
        for name in c["instances"]:
            inst = instance_spec(s, name)
            for delta in c["delta"]:
                out.append(Cell("lower_bounds", f"condorcet_{name}_d{_fmt(delta)}",
                                _car_job(s, "lower_bounds", inst, "car_cond", delta), int(c["runs"])))
    if "oracles" in s:
        o = s["oracles"]
        for n, ell in o["sizes"]:
            job = {"study": "oracles", "algorithm": "oracles", "n": int(n), "ell": int(ell),
                   "exhaustive_limit": int(o["exhaustive_limit"]),
                   "fptas": [[int(a), int(b)] for a, b in o["fptas"]] if n <= int(o["fptas_max_n"]) else [],
                   "seed": int(s["seed"])}
            out.append(Cell("oracles", f"k{n}{ell}", job, int(o["cases"])))
    if "lemma9" in s:
        for c in s["lemma9"]["cells"]:
            n, ell = (int(v) for v in c["size"])
            job = {"study": "lemma9", "algorithm": "lemma9", "n": n, "ell": ell,
                   "eps": [float(e) for e in c["eps"]], "seed": int(s["seed"])}
            out.append(Cell("lemma9", f"k{n}{ell}", job, int(c["cases"]), function=run_case))
    if "car_cond" in s:
        c = s["car_cond"]
        for name in c["instances"]:
            inst = instance_spec(s, name)
            for delta in c["delta"]:
                out.append(Cell("car_cond", f"{name}_d{_fmt(delta)}", _car_job(s, "car_cond", inst, "car_cond", delta),
                                int(c["runs"])))
        er = c["every_round"]
        for name in er["instances"]:
            for delta in er["delta"]:
                out.append(Cell("car_cond", f"{name}_d{_fmt(delta)}_every_round",
                                _car_job(s, "car_cond", instance_spec(s, name), "car_cond", delta, schedule="round"),
                                int(c["runs"])))
        fp = c["fptas"]
        out.append(Cell("car_cond", f"{fp['instance']}_d{_fmt(fp['delta'])}_fptas",
                        _car_job(s, "car_cond", instance_spec(s, fp["instance"]), "car_cond", fp["delta"],
                                 oracle="fptas", fptas=[int(fp["outer"]), int(fp["fw"])]), int(fp["runs"])))
    if "parallel" in s:
        p = s["parallel"]
        oos = p.get("out_of_sample", {"instances": []})
        for names, deltas, runs in ((p["instances"], p["delta"], p["runs"]),
                                    (oos["instances"], oos.get("delta", []), oos.get("runs", 1))):
            for name in names:
                inst = instance_spec(s, name)
                for algorithm in ("car_cond", "car_parallel"):
                    for delta in deltas:
                        out.append(Cell("parallel", f"{name}_{algorithm}_d{_fmt(delta)}",
                                        _car_job(s, "parallel", inst, algorithm, delta), int(runs)))
    names = [c.family for c in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ConfigError(f"chen2020: two cells named {dup[0]!r}: repeated values in a study's lists")
    return out


def plan_cells(s: Mapping) -> list:
    """The sample shards of every cell (:func:`duelbench.experiments.samples.plan_samples`)."""
    out = []
    for c in cells(s):
        out += plan_samples(experiment="chen2020", family=c.family, function=c.function, job=c.job, n=c.runs,
                            per_shard=int(s["runs_per_shard"]), fidelity=s["fidelity"], root=s["results"])
    return out
