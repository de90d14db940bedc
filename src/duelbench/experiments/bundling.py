"""Bundles of small simulation shards: one job process computes several shards.

Every shard job pays a fixed start-up before its first step: the interpreter, the imports
(numba, scipy.optimize through :mod:`duelbench.problems.winners`, the dataset registry) and
loading the algorithm's compiled kernels from the numba cache, about :data:`START_UP_CPU_S`
CPU-seconds measured per job. Where a shard simulates for less than nine times that, the
start-up is more than :data:`MAX_START_UP_SHARE` of its job: at paper fidelity the shards of
Agarwal et al. (median 1.0 CPU-s in process) and the Condorcet panels of Wu & Liu, at the
quick and smoke fidelities nearly every shard.

Such shards are computed in bundles (rule ``simulate_bundle`` of workflow/rules/jobs.smk, one
process for the whole bundle); each shard's own job (``simulate_shard``) then only links the
bundle's file into place. A bundled shard is byte-identical to the same shard computed alone:
its random streams derive from the seed and the shard's identity, never from the process
(:mod:`duelbench.engine.seeding`), and its sidecar records the same content.

Which shards go together is declared, not measured at build time: a shard's cost is its
steps (horizon × runs) over the marginal steps per CPU-second the benchmark's cost pass
measured for its algorithm on its instance (``data/benchmark/cost_pass.csv``), or on the
measured instance whose number of arms is nearest (in log scale); an algorithm the cost pass
has not timed (a plug-in) is costed at the slowest timed algorithm of that number of arms.
Within one (fidelity, algorithm, downloaded data files read: none for the matrices in the
checkout), in path order, shards whose estimate is under
:data:`BUNDLE_CPU_S` are packed greedily until the bundle's estimate reaches it or it holds
:data:`MAX_SHARDS` shards; a shard costed above it runs alone. The bundles depend only on the
configured shards, so every build of one configuration plans the same bundles.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from duelbench.archive.fallbacks import work_of
from duelbench.config.files import CHECKOUT
from duelbench.data.registry import dataset_info, required_files

#: CPU-seconds a shard job spends before its first step (measured: a pcomp shard of 100 runs of
#: T = 10^5 takes 2.4 CPU-s as a process and 0.9 CPU-s in process, on the reference machine).
START_UP_CPU_S = 1.5

#: Largest share of a job's CPU time its start-up may take before shards are bundled.
MAX_START_UP_SHARE = 0.10

#: A bundle is closed once its estimated simulation reaches this: the start-up is then at most
#: :data:`MAX_START_UP_SHARE` of the job (13.5 CPU-s for a start-up of 1.5).
BUNDLE_CPU_S = START_UP_CPU_S * (1.0 - MAX_START_UP_SHARE) / MAX_START_UP_SHARE

#: Most shards in one bundle (keeps a bundle's command line and its loss on failure small).
MAX_SHARDS = 64

#: The benchmark's cost pass: marginal steps per CPU-second per (algorithm, instance).
COST_PASS = CHECKOUT / "data" / "benchmark" / "cost_pass.csv"


@dataclass(frozen=True)
class Bundle:
    """Shards of one (fidelity, algorithm) that read the same data files, computed by one job,
    in path order."""

    fidelity: str
    algorithm: str
    shards: tuple  # of duelbench.engine.jobs.ShardSpec

    @property
    def name(self) -> str:
        """``<first run folder>-<hash of the member paths>``: stable for the same members."""
        digest = hashlib.sha256("\n".join(s.path for s in self.shards).encode()).hexdigest()[:12]
        return f"{self.shards[0].dataset}-{digest}"

    def folder(self, root: str) -> str:
        """The bundle job's output folder (a temporary output: removed once its shards are in place)."""
        return os.path.normpath(f"{root}/{self.fidelity}/bundles/{self.algorithm}/{self.name}")

    def staged(self, root: str, path: str) -> str:
        """Where the bundle job leaves the shard at ``path`` (its sidecar beside it, ``.json`` added)."""
        return os.path.join(self.folder(root), staged_name(path))

    def job_params(self) -> str:
        """Canonical JSON of the bundle job: each member's output path, staged name and job
        parameters (:func:`duelbench.engine.jobs.run_bundle_job`)."""
        return json.dumps(
            [{"out": s.path, "staged": staged_name(s.path), "job": json.loads(s.job_params())} for s in self.shards],
            sort_keys=True, separators=(",", ":"),
        )


def staged_name(path: str) -> str:
    """File name of the shard at ``path`` in its bundle's folder:
    ``<dataset>__<algorithm>-<paramhash>__T<horizon>__runs-<a>-<b>.npz`` (the four path
    components below its fidelity folder)."""
    return "__".join(os.path.normpath(path).split(os.sep)[-4:])


@functools.lru_cache(maxsize=None)
def _rates(path: str) -> tuple[dict, dict]:
    """((algorithm, dataset) -> steps/s, K -> {algorithm: steps/s}) of the cost pass file."""
    by_cell: dict[tuple[str, str], float] = {}
    by_k: dict[int, dict[str, float]] = {}
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
    except OSError:
        return {}, {}
    for row in rows:
        try:
            rate, k = float(row["marginal_steps_per_s"]), int(row["K"])
        except (KeyError, TypeError, ValueError):
            continue
        if not rate > 0:
            continue
        by_cell[(row["algorithm"], row["dataset"])] = rate
        slowest = by_k.setdefault(k, {})
        slowest[row["algorithm"]] = min(rate, slowest.get(row["algorithm"], math.inf))
    return by_cell, by_k


def steps_per_second(algorithm: str, dataset: str, cost_pass: str | os.PathLike = COST_PASS) -> float | None:
    """Declared marginal steps per CPU-second of ``algorithm`` on ``dataset`` (see the module
    doc), None when nothing is known (no cost pass, or an unknown dataset)."""
    by_cell, by_k = _rates(str(cost_pass))
    if (algorithm, dataset) in by_cell:
        return by_cell[(algorithm, dataset)]
    if not by_k:
        return None
    try:
        k = dataset_info(dataset).K
    except Exception:  # noqa: BLE001 - an unknown dataset is simply not bundled
        return None
    nearest = min(by_k, key=lambda m: (abs(math.log(m) - math.log(k)), m))
    rates = by_k[nearest]
    return rates.get(algorithm, min(rates.values()))


def estimated_cpu_s(spec, cost_pass: str | os.PathLike = COST_PASS) -> float | None:
    """Declared CPU-seconds of a shard's simulation (its steps over :func:`steps_per_second`)."""
    rate = steps_per_second(spec.algorithm, spec.dataset, cost_pass)
    if rate is None:
        return None
    steps, _ = work_of(spec)
    return steps / rate


def plan_bundles(specs: Iterable, cost_pass: str | os.PathLike = COST_PASS,
                 bundle_cpu_s: float = BUNDLE_CPU_S, max_shards: int = MAX_SHARDS) -> list[Bundle]:
    """The bundles of ``specs`` (shards of any fidelities and algorithms; see the module doc).
    Shards left out run alone; a bundle has at least two shards."""
    groups: dict[tuple, list] = {}
    for spec in sorted(specs, key=lambda s: s.path):
        groups.setdefault((spec.fidelity, spec.algorithm, data_files(spec.dataset)), []).append(spec)
    bundles = []
    for (fidelity, algorithm, _), members in sorted(groups.items()):
        current: list = []
        total = 0.0
        for spec in members:
            cost = estimated_cpu_s(spec, cost_pass)
            if cost is None or cost >= bundle_cpu_s:
                continue
            current.append(spec)
            total += cost
            if total >= bundle_cpu_s or len(current) == max_shards:
                bundles.append(Bundle(fidelity, algorithm, tuple(current)))
                current, total = [], 0.0
        if len(current) > 1:
            bundles.append(Bundle(fidelity, algorithm, tuple(current)))
    return bundles


@functools.lru_cache(maxsize=None)
def data_files(dataset: str) -> tuple[str, ...]:
    """Names of the downloaded files ``dataset`` reads (none for the matrices in the checkout):
    only shards that read the same files share a bundle, so building a target never asks for
    data its own shards do not read."""
    try:
        return tuple(sorted(p.name for p in required_files(dataset, data_root="data")))
    except Exception:  # noqa: BLE001 - an unknown dataset: its own group
        return (f"?{dataset}",)


def bundle_index(bundles: Sequence[Bundle]) -> Mapping[str, Bundle]:
    """Shard path -> its bundle."""
    return {s.path: b for b in bundles for s in b.shards}
