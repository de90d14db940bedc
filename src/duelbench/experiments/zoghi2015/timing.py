"""Host-dependent timing tables of the Zoghi et al. (2015) experiment: measurements, not results.

* ``throughput.csv`` (:func:`throughput_table`): steps per second of every simulation job.
* ``appendix_c_cost.csv`` (:func:`cost_table`): seconds per sample of every Appendix-C sample shard.
* :func:`extrapolated_cost`: the CPU time of another fidelity's jobs, extrapolated from both.

Timings come from the provenance sidecars of the shards this build computed (``source``
``computed``). A shard read from the results archive has no sidecar: its timing is missing (NaN)
and its ``source`` is ``archive``; a table never fails for want of a timing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from duelbench.archive.store import VALID

from duelbench.engine.jobs import group_shards, ShardSpec
from ..contract import SampleShard
from . import KINDS, REGRET_ITEMS, appendix_c_samples, shard_specs


def _timing(path: str, archived: bool) -> dict | None:
    """The ``run`` record of a shard's sidecar, or None when it was read from the archive or
    has no sidecar."""
    from duelbench.provenance.sidecar import read_sidecar

    if archived or not os.path.isfile(path + ".json"):
        return None
    return read_sidecar(path)


def _source(timed: int, total: int) -> str:
    return "computed" if timed == total else ("archive" if timed == 0 else "mixed")


def throughput_table(specs_by_item: Mapping[str, Sequence[ShardSpec]]):
    """(table, sidecars read): steps per second per (item, dataset, algorithm, horizon).

    Columns: ``item, dataset, K, algorithm, horizon, shards, runs, steps, source`` (``computed``,
    ``archive`` or ``mixed``), ``timed_shards`` (shards with a sidecar), ``wall_s,
    steps_per_second`` (steps / wall time of the timed shards), ``cpu_s, cpu_steps_per_second``
    (the same per CPU second: less sensitive to other load on the host),
    ``min_shard_steps_per_second``, ``max_shard_steps_per_second`` (the sidecars'
    ``run.info.steps_per_second``); NaN without a timed shard. Horizon-mode algorithms count
    ``horizon x runs`` steps although they simulate every point of their horizon grid.
    """
    import pandas as pd

    from duelbench.data.registry import dataset_info
    from duelbench.engine.shard_sources import sources_for

    sources = sources_for(KINDS)
    rows, sidecars = [], []
    for item in REGRET_ITEMS:
        for (dataset, alg, _h, horizon), group in group_shards(specs_by_item[item]).items():
            steps = timed_steps = wall = cpu = 0.0
            rates, timed = [], 0
            for spec in group:
                runs = spec.run_stop - spec.run_start
                doc = _timing(spec.path, sources.status(spec) == VALID)
                if doc is None:
                    steps += horizon * runs
                    continue
                sidecars.append(spec.path + ".json")
                st = float(doc["content"]["extra"].get("steps", horizon * runs))
                steps += st
                timed += 1
                timed_steps += st
                wall += float(doc["run"].get("wall_time_s") or np.nan)
                cpu += float(doc["run"].get("cpu_time_s") or np.nan)
                rate = (doc["run"].get("info") or {}).get("steps_per_second")
                if rate is not None:
                    rates.append(float(rate))
            if not timed:
                wall = cpu = np.nan
            rows.append({"item": item, "dataset": dataset, "K": dataset_info(dataset).K, "algorithm": alg,
                         "horizon": int(horizon), "shards": len(group),
                         "runs": int(sum(sp.run_stop - sp.run_start for sp in group)), "steps": int(steps),
                         "source": _source(timed, len(group)), "timed_shards": timed,
                         "wall_s": wall, "steps_per_second": timed_steps / wall if wall > 0 else np.nan,
                         "cpu_s": cpu, "cpu_steps_per_second": timed_steps / cpu if cpu > 0 else np.nan,
                         "min_shard_steps_per_second": min(rates) if rates else np.nan,
                         "max_shard_steps_per_second": max(rates) if rates else np.nan})
    return pd.DataFrame(rows), sidecars


COST_COLUMNS = ["click_model", "mode", "sample_start", "sample_stop", "K_min", "K_max", "K_mean", "samples",
                "source", "wall_s", "cpu_s", "seconds_per_sample", "cpu_seconds_per_sample"]


def cost_table(shards: Iterable[SampleShard]):
    """Cost per sample of every Appendix-C sample shard, from its sidecar (``run.wall_time_s``,
    ``run.cpu_time_s``): columns :data:`COST_COLUMNS` (host dependent; NaN for shards read from
    the archive, ``source`` = ``archive``)."""
    import pandas as pd

    from ..samples import sources
    from .appendix_c import sample_pairs

    rows = []
    for sh in sorted(shards, key=lambda x: (x.family, x.a)):
        ks = np.array([K for K, _ in sample_pairs(sh.job, sh.a, sh.b)], dtype=float)
        doc = _timing(sh.path, sources().status(sh) == VALID)
        run = doc["run"] if doc is not None else {}
        wall = float(run.get("wall_time_s") or np.nan)
        cpu = float(run.get("cpu_time_s") or np.nan)
        n = sh.b - sh.a
        rows.append({"click_model": sh.job["click_model"], "mode": sh.job["mode"], "sample_start": sh.a,
                     "sample_stop": sh.b, "K_min": int(ks.min()), "K_max": int(ks.max()), "K_mean": float(ks.mean()),
                     "samples": n, "source": "computed" if doc is not None else "archive", "wall_s": wall,
                     "cpu_s": cpu, "seconds_per_sample": wall / n, "cpu_seconds_per_sample": cpu / n})
    return pd.DataFrame(rows, columns=COST_COLUMNS)


def extrapolated_cost(config: Mapping, throughput_csv: str, cost_csv: str, *, fidelity: str = "paper"):
    """CPU seconds of every job of ``fidelity``, **extrapolated** from a smaller build's measurements.

    ``throughput_csv`` / ``cost_csv`` are ``throughput.csv`` and ``appendix_c_cost.csv`` of a
    finished build (e.g. the quick one). A simulation shard costs ``horizon x runs`` steps at the
    measured ``cpu_steps_per_second`` of its (dataset, algorithm) (per-step cost can change with
    t, so this is an extrapolation); an Appendix-C shard costs the sum over its samples of the
    measured CPU seconds per sample at that K, linearly interpolated between the mean K of the
    measured shards of its click model and mode. Untimed measurements (NaN) are skipped.
    Returns one row per shard: ``part, name, algorithm, horizon, units, cpu_s``.
    """
    import pandas as pd

    from .appendix_c import sample_pairs

    thr = pd.read_csv(throughput_csv)
    rate = thr.groupby(["dataset", "algorithm"])["cpu_steps_per_second"].median().to_dict()
    cost = pd.read_csv(cost_csv).dropna(subset=["cpu_seconds_per_sample"])
    rows = []
    for sp in shard_specs(config, fidelity):
        r = rate.get((sp.dataset, sp.algorithm))
        steps = sp.horizon * (sp.run_stop - sp.run_start)
        rows.append({"part": "regret", "name": sp.dataset, "algorithm": sp.algorithm, "horizon": sp.horizon,
                     "units": steps, "cpu_s": steps / r if r and np.isfinite(r) else np.nan})
    for sh in appendix_c_samples(config, fidelity):
        model, mode = sh.job["click_model"], sh.job["mode"]
        c = cost[(cost["click_model"] == model) & (cost["mode"] == mode)].groupby("K_mean", as_index=False).mean(
            numeric_only=True)
        ks = np.array([K for K, _ in sample_pairs(sh.job, sh.a, sh.b)], dtype=float)
        per = np.interp(ks, c["K_mean"].to_numpy(float), c["cpu_seconds_per_sample"].to_numpy(float)) if len(c) else np.nan
        rows.append({"part": "appendix_c", "name": model, "algorithm": mode, "horizon": 0, "units": sh.b - sh.a,
                     "cpu_s": float(np.sum(per))})
    return pd.DataFrame(rows)
