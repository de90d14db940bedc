"""``duelbench bench``: single-core steps per second of every compiled algorithm.

Prints JSON: for each algorithm and instance (by default K = 5, 16, 64 and 500: the printed
5-arm MSLR Condorcet matrix, Sushi, Komiyama et al.'s 64-arm MSLR panel and Zoghi et al.'s
500-arm Copeland instance), steps per second of single runs after compilation, the best of
``--repeat`` timings.  Each case is capped at about ``--max-seconds``: a short calibration run
estimates the speed, and the timed runs are shortened to fit the cap (the horizon used is
reported).  A family of per-run instances is timed on its instance 0.  An instance whose data is not installed (the MSLR panel before
``duelbench fetch-data``) is listed as skipped with the reason.  ``--csv``/``--md`` also write
the table; the workflow's ``engine_throughput`` rule writes it for the report
(``<figures>/engine/throughput.csv|md``, settings from config ``throughput``).

``--floor`` instead times, in the same process, the per-step floor of a run loop
(:func:`floor_loop`: one uniform draw, one comparison and one regret look-up per step) and the
``random`` algorithm on each instance, and prints the ratio random / floor: the share of the
floor's speed that the engine's duel and regret recorder keep.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import platform
import time

import numba
import numpy as np

from duelbench.algorithms.registry import get_algorithm, list_algorithms
from duelbench.data.errors import DataError
from duelbench.data.registry import is_family, load_matrix
from duelbench.engine.simulate import simulate
from duelbench.provenance.sidecar import atomic_write_text, Timer, write_sidecar

#: One instance per K = 5, 16, 64, 500.
DEFAULT_INSTANCES = ("mslr5_condorcet_printed", "sushi", "kom_mslr64_noncondorcet", "zoghi_copeland500")
CALIBRATION_STEPS = 20_000


def time_run(algorithm: str, dataset: str, steps: int, params: dict | None = None) -> float:
    """Wall seconds of one run of ``steps`` steps (a fixed seed; compile first with a short run)."""
    t0 = time.perf_counter()
    simulate(algorithm, dataset, steps, 1, seed=12346, checkpoints=[steps], **(params or {}))
    return time.perf_counter() - t0


def measure(algorithm: str, dataset: str, horizon: int, repeat: int = 3, max_seconds: float = 10.0,
            params: dict | None = None) -> dict:
    """Best-of-``repeat`` steps/s of single runs of at most ``horizon`` steps (compilation
    excluded), shortened so that the case takes about ``max_seconds``; ``params`` are the
    algorithm's (default: the registry's defaults).

    The speed is first estimated on runs of 10, 20, 40, … steps (at most
    :data:`CALIBRATION_STEPS`) until they have taken a tenth of the budget beyond the first, as
    the marginal speed between the last two (a run's fixed cost, K × K tables, dominates short
    runs at K = 500), so slow cases (Thompson sampling at K = 500: under 100 steps per second)
    stay within their cap too.
    """
    params = dict(params or {})
    simulate(algorithm, dataset, min(horizon, 10), 1, seed=12345, **params)  # compile and load

    def timed(n: int) -> float:
        return time_run(algorithm, dataset, n, params)

    # the marginal speed between calibration runs of doubling length leaves out the fixed cost of
    # a run (setting up K x K tables), which dominates short runs at large K
    calib = min(horizon, 10)
    first = last = timed(calib)
    rate = calib / max(first, 1e-9)
    while calib < min(horizon, CALIBRATION_STEPS) and last - first < max_seconds / 10:
        longer = min(2 * calib, horizon, CALIBRATION_STEPS)
        t = timed(longer)
        rate = (longer - calib) / (t - last) if t > last else longer / max(t, 1e-9)
        calib, last = longer, t
    steps = int(max(min(calib, horizon), min(horizon, rate * max_seconds / max(repeat, 1))))
    best = 0.0
    for k in range(repeat):
        t0 = time.perf_counter()
        simulate(algorithm, dataset, steps, 1, seed=k, checkpoints=[steps], **params)
        best = max(best, steps / (time.perf_counter() - t0))
    return {"steps_per_second": round(best), "horizon": steps, "capped": steps < horizon}


def timed_instance(dataset: str) -> str:
    """The matrix a case times: the dataset itself, or for a family of per-run instances its
    instance 0 (``"<family>.run0"``; every instance of a family has the same K)."""
    return f"{dataset}.run0" if is_family(dataset) else dataset


def run(names, datasets, horizon: int = 1_000_000, repeat: int = 3, max_seconds: float = 10.0) -> dict:
    """Time every algorithm of ``names`` on every installed instance of ``datasets``: the JSON
    document that ``duelbench bench`` prints (machine, settings, K per instance, skipped
    instances with the reason, and per case steps/s, horizon used and whether it was capped)."""
    out = {"machine": {"python": platform.python_version(), "processor": platform.processor() or platform.machine(),
                       "cpu_count": os.cpu_count(), "threads_used": 1},
           "horizon": horizon, "max_seconds": max_seconds, "repeat": repeat, "K": {}, "skipped": {}, "cases": {}}
    installed = []
    for d in datasets:
        try:
            out["K"][d] = int(load_matrix(timed_instance(d)).K)
            installed.append(d)
        except DataError as exc:
            out["skipped"][d] = str(exc).splitlines()[0]
    for name in names:
        out["cases"][name] = {d: measure(name, timed_instance(d), horizon, repeat, max_seconds) for d in installed}
    out["note"] = ("steps per second = horizon / wall time of one run (compilation excluded, best of "
                   f"{repeat}); copeland_savage and scb add committed exploitation in closed form or in "
                   "blocks, so their figures count simulated steps, not per-step work")
    return out


TABLE_COLUMNS = ("algorithm", "dataset", "K", "steps_per_second", "horizon", "capped")


def table_rows(result: dict) -> list[dict]:
    """One row per (algorithm, instance) of a :func:`run` result, in :data:`TABLE_COLUMNS`."""
    return [{"algorithm": name, "dataset": d, "K": result["K"][d], **case}
            for name, cases in result["cases"].items() for d, case in cases.items()]


def markdown(result: dict) -> str:
    """The steps-per-second table of a :func:`run` result as Markdown: one row per algorithm,
    one column per K (host dependent: the machine is stated)."""
    datasets = sorted(result["K"], key=lambda d: result["K"][d])
    m = result["machine"]
    lines = ["# Engine throughput", "",
             f"Single-core steps per second (best of {result['repeat']} timed run(s) of at most {result['horizon']:,} "
             f"steps, each case capped at about {result['max_seconds']:g} s; compilation excluded) on "
             f"{m['processor']} ({m['cpu_count']} CPUs), Python {m['python']}. Host dependent: a timing, "
             "not a result.", "",
             "| algorithm | " + " | ".join(f"K = {result['K'][d]} ({d})" for d in datasets) + " |",
             "|---|" + "---:|" * len(datasets)]
    for name, cases in result["cases"].items():
        cells = [f"{cases[d]['steps_per_second']:,}" for d in datasets]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += [""] + [f"Not timed: {d} ({why})" for d, why in result["skipped"].items()]
    lines += ["", f"Note: {result['note']}."]
    return "\n".join(lines).rstrip() + "\n"


def write_tables(result: dict, csv_path: str | None = None, md_path: str | None = None) -> None:
    """Write :func:`table_rows` as CSV and/or :func:`markdown` (each file written atomically)."""
    if csv_path:
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=TABLE_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(table_rows(result))
        atomic_write_text(csv_path, buf.getvalue())
    if md_path:
        atomic_write_text(md_path, markdown(result))


@numba.njit(cache=True)
def floor_loop(P, regret, horizon, rng):  # pragma: no cover - compiled
    """The floor of a run loop: ``horizon`` steps, each one uniform draw compared with
    ``P[i, j]`` and one look-up of ``regret[i, j]``, the pair cycling through every (i, j) so
    that no load can be hoisted; returns (total regret, wins) so that nothing is optimised away."""
    K = P.shape[0]
    total, wins, i, j = 0.0, 0, 0, 0
    for _ in range(horizon):
        if rng.random() < P[i, j]:
            wins += 1
        total += regret[i, j]
        j += 1
        if j == K:
            j = 0
            i = i + 1 if i + 1 < K else 0
    return total, wins


def floor_ratio(dataset: str, horizon: int = 1_000_000, repeat: int = 3) -> dict:
    """Steps/s of :func:`floor_loop` and of the ``random`` algorithm on ``dataset`` (best of
    ``repeat`` runs of ``horizon`` steps each, interleaved, in this process) and their ratio.

    ``random`` is timed twice: its run loop alone (:func:`~duelbench.engine.loop.run_algorithm`
    on the same matrix and regret table as the floor, the default checkpoints), whose ratio to
    the floor is ``random_over_floor``, and a whole :func:`~duelbench.simulate` call, which adds
    a run's fixed cost (the instance, its regret tables, the arm permutation and the streams).
    """
    from duelbench.engine.checkpoints import default_checkpoints
    from duelbench.engine.loop import run_algorithm
    from duelbench.engine.seeding import run_rng
    from duelbench.problems.regret import regret_matrix

    instance = timed_instance(dataset)
    P = load_matrix(instance)
    values = np.ascontiguousarray(P.values, dtype=np.float64)
    regret = np.ascontiguousarray(regret_matrix(P, "copeland"), dtype=np.float64)
    stack = np.ascontiguousarray(regret[None])
    checkpoints = default_checkpoints(horizon)
    no_params = np.zeros(0, dtype=np.float64)
    floor_loop(values, regret, 10, np.random.default_rng(0))  # compile and load
    simulate("random", instance, 10, 1, seed=0)
    best = {"floor": 0.0, "loop": 0.0, "simulate": 0.0}
    for k in range(repeat):
        t0 = time.perf_counter()
        floor_loop(values, regret, horizon, np.random.default_rng(k))
        best["floor"] = max(best["floor"], horizon / (time.perf_counter() - t0))
        rng = run_rng(k, instance, "random", {}, 0)
        t0 = time.perf_counter()
        run_algorithm("random", values, stack, checkpoints, no_params, rng, False)
        best["loop"] = max(best["loop"], horizon / (time.perf_counter() - t0))
        t0 = time.perf_counter()
        simulate("random", instance, horizon, 1, seed=k)
        best["simulate"] = max(best["simulate"], horizon / (time.perf_counter() - t0))
    return {"dataset": dataset, "K": int(P.K), "horizon": horizon, "repeat": repeat,
            "floor_steps_per_second": round(best["floor"]), "random_steps_per_second": round(best["loop"]),
            "random_over_floor": round(best["loop"] / best["floor"], 3),
            "random_simulate_steps_per_second": round(best["simulate"])}


def compiled_algorithms() -> list[str]:
    """Every registered algorithm with a compiled kernel (the default of ``--algorithms``)."""
    return [a for a in list_algorithms() if get_algorithm(a).compiled]


def write_for_workflow(settings: dict, csv_path: str, md_path: str) -> dict:
    """The ``engine_throughput`` rule: time every compiled algorithm on :data:`DEFAULT_INSTANCES`
    with config ``throughput`` (``horizon``, ``repeat``, ``max_seconds``), write both tables and
    a provenance sidecar of the CSV (the settings not given take :func:`run`'s defaults);
    returns the :func:`run` result."""
    with Timer() as t:
        result = run(compiled_algorithms(), DEFAULT_INSTANCES, **settings)
        write_tables(result, csv_path, md_path)
    write_sidecar(csv_path, inputs=[], config=settings, extra={"machine": result["machine"], "skipped": result["skipped"]},
                  **t.as_kwargs())
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="duelbench bench", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--algorithms", nargs="*", default=None, metavar="NAME",
                    help="registry names (default: every compiled algorithm)")
    ap.add_argument("--datasets", nargs="*", default=list(DEFAULT_INSTANCES), metavar="DATASET",
                    help="instances to time (registry names)")
    ap.add_argument("--horizon", type=int, default=1_000_000, help="steps of each timed run, at most")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per case (the best is reported)")
    ap.add_argument("--max-seconds", type=float, default=10.0,
                    help="about how long one case may take; runs are shortened to fit")
    ap.add_argument("--csv", default=None, metavar="PATH", help="also write the table as CSV here")
    ap.add_argument("--md", default=None, metavar="PATH", help="also write the table as Markdown here")
    ap.add_argument("--floor", action="store_true",
                    help="time the per-step floor of a run loop against the random algorithm instead (ratio)")
    args = ap.parse_args(argv)
    if args.floor:
        for d in args.datasets:
            r = floor_ratio(d, args.horizon, args.repeat)
            print(f"{d} (K = {r['K']}): floor {r['floor_steps_per_second']:.3g} steps/s, random's run loop "
                  f"{r['random_steps_per_second']:.3g} steps/s, random/floor {r['random_over_floor']:.3g} "
                  f"(a whole simulate() call: {r['random_simulate_steps_per_second']:.3g} steps/s)")
        return 0
    out = run(args.algorithms or compiled_algorithms(), args.datasets, args.horizon, args.repeat, args.max_seconds)
    write_tables(out, args.csv, args.md)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
