"""Host-dependent timing tables of the Zoghi et al. (2015) experiment: measurements, not results.

* ``throughput.csv`` (:func:`throughput_table`): steps per second of every simulation job.
* ``appendix_c_cost.csv`` (:func:`cost_table`): seconds per sample of every Appendix-C sample shard.

Timings come from the provenance sidecars of the shards this build computed (``source``
``computed``). A shard read from the results archive has no sidecar: its timing is missing (NaN)
and its ``source`` is ``archive``; a table never fails for want of a timing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from duelbench.archive.store import VALID
from duelbench.data.registry import dataset_info
from duelbench.engine.jobs import group_shards, ShardSpec
from duelbench.engine.shard_sources import sources_for
from duelbench.provenance.sidecar import read_sidecar

from ..contract import SampleShard
from ..samples import sources
from .appendix_c import sample_pairs
from .config import KINDS, REGRET_ITEMS


def _timing(path: str, archived: bool) -> dict | None:
    """The ``run`` record of a shard's sidecar, or None when it was read from the archive or
    has no sidecar."""
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
