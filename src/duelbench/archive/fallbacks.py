"""What a build computes instead of reading it from the results archive, and why.

A planned item (a simulation or a sample shard) whose archive entry is missing, stale for this
code, corrupt or unverifiable, and whose results file is absent, is computed by the workflow.
At paper fidelity that is CPU-hours, so the workflow says so once, before its jobs start
(:func:`report`): how many items per reason, which ones, and the CPU time they will take,
extrapolated from the timed shards of the same job (the sidecars next to them, as
``duelbench cost`` does) where there are any.
"""

from __future__ import annotations

import glob
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .store import MISSING, STALE, TAMPERED, Lookup

#: Items listed per reason (the rest are counted).
LISTED = 10


@dataclass(frozen=True)
class Fallback:
    """A planned item the workflow computes instead of reading it from the archive.

    Attributes
    ----------
    item : object
        The planned item (``ShardSpec`` or ``SampleShard``: anything with a results ``path``).
    reason : str
        ``missing``, ``stale <fields>`` (e.g. ``stale code``), ``corrupt``, ``unverifiable`` or
        ``archive off``, with the archive's detail after a colon.
    rejected : str or None
        Why its results file was set aside (it did not match its sidecar), if it was.
    """

    item: object
    reason: str
    rejected: str | None = None

    @property
    def category(self) -> str:
        """The reason without its detail (what :func:`report` groups by)."""
        return self.reason.split(":", 1)[0]


def reason_of(found: Lookup) -> str:
    """The reason a lookup sends an item to the workflow: ``category[: detail]``."""
    if found.status == MISSING:
        return "missing"
    if found.status == STALE:
        return f"stale {'/'.join(found.differs) or 'key'}: {found.reason}"
    if found.status == TAMPERED:
        return f"corrupt: {found.reason}"
    if found.status == "off":
        return "archive off"
    return f"{found.status}: {found.reason}" if found.reason else found.status


def work_of(item) -> tuple[int, str]:
    """(amount, unit) of an item's work: simulation steps of a shard, samples of a sample shard."""
    if hasattr(item, "horizon"):
        return int(item.horizon) * (int(item.run_stop) - int(item.run_start)), "steps"
    return int(item.b) - int(item.a), "samples"


def _measured(sidecar: str, unit: str) -> tuple[float, int] | None:
    """(CPU seconds, units of work) recorded by one shard's sidecar, or None."""
    try:
        with open(sidecar, encoding="utf-8") as fh:
            doc = json.load(fh)
        cpu, done = doc["run"]["cpu_time_s"], doc["content"]["extra"][unit]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if cpu is None or not done:
        return None
    return float(cpu), int(done)


def cpu_seconds_per_unit(folder: str, unit: str) -> float | None:
    """Mean CPU seconds per unit of work of the timed shards in ``folder`` (a job's shards share
    a folder), or None when none is timed."""
    found = [m for m in (_measured(p, unit) for p in sorted(glob.glob(os.path.join(folder, "*.npz.json"))))
             if m is not None]
    if not found:
        return None
    return sum(c for c, _ in found) / sum(n for _, n in found)


def estimate_cpu_seconds(fallbacks: Iterable[Fallback]) -> tuple[float, int]:
    """(estimated CPU seconds of the timed ones, how many could not be estimated)."""
    total, unknown, rates = 0.0, 0, {}
    for fb in fallbacks:
        amount, unit = work_of(fb.item)
        folder = os.path.dirname(fb.item.path)
        if (folder, unit) not in rates:
            rates[(folder, unit)] = cpu_seconds_per_unit(folder, unit)
        rate = rates[(folder, unit)]
        if rate is None:
            unknown += 1
        else:
            total += rate * amount
    return total, unknown


def estimated_costs(items: Sequence) -> list[float]:
    """Each item's estimated CPU seconds, for the progress of a build (:mod:`duelbench.progress`):
    its work (:func:`work_of`) times the CPU seconds per unit of the timed shards of its folder;
    where a folder has none, the mean rate of the timed folders of the same unit; where no
    folder of the unit is timed, its work alone (steps or samples: the build's measured
    throughput then calibrates them)."""
    works = [work_of(item) for item in items]
    rates: dict[tuple[str, str], float | None] = {}
    for item, (_, unit) in zip(items, works):
        key = (os.path.dirname(item.path), unit)
        if key not in rates:
            rates[key] = cpu_seconds_per_unit(*key)
    known: dict[str, list[float]] = {}
    for (_, unit), rate in rates.items():
        if rate is not None:
            known.setdefault(unit, []).append(rate)
    costs = []
    for item, (amount, unit) in zip(items, works):
        rate = rates[(os.path.dirname(item.path), unit)]
        if rate is None and unit in known:
            rate = sum(known[unit]) / len(known[unit])
        costs.append(amount * rate if rate is not None else float(amount))
    return costs


def _cost(fallbacks: list[Fallback]) -> str:
    seconds, unknown = estimate_cpu_seconds(fallbacks)
    amounts: dict[str, int] = {}
    for fb in fallbacks:
        amount, unit = work_of(fb.item)
        amounts[unit] = amounts.get(unit, 0) + amount
    work = ", ".join(f"{n:,} {unit}" for unit, n in sorted(amounts.items()))
    if unknown == len(fallbacks):
        return f"{work}; CPU time unknown (no timed shard of the same job)"
    note = f" ({unknown} without a timed shard of the same job not counted)" if unknown else ""
    return f"{work}; estimated {seconds / 3600:.3g} CPU-h{note}"


def _lines_of(category: str, items: list[Fallback], listed: int) -> list[str]:
    lines = [f"  {category}: {len(items)} ({_cost(items)})"]
    for fb in items[:listed]:
        detail = fb.reason.split(":", 1)[1].strip() if ":" in fb.reason else ""
        if fb.rejected:
            detail = "; ".join(d for d in (detail, f"results file set aside: {fb.rejected}") if d)
        lines.append(f"    {fb.item.path}" + (f" ({detail})" if detail else ""))
    if len(items) > listed:
        lines.append(f"    … and {len(items) - listed} more")
    return lines


def report(fallbacks: Iterable[Fallback], listed: int = LISTED) -> list[str]:
    """The lines the workflow prints before its jobs start (empty when nothing is recomputed).

    Parameters
    ----------
    fallbacks : iterable of Fallback
        Each item once (e.g. the union of every reader's :attr:`EntrySources.fallbacks`).
    listed : int
        Items named per reason; the others are counted.
    """
    fallbacks = list(fallbacks)
    if not fallbacks:
        return []
    seconds, unknown = estimate_cpu_seconds(fallbacks)
    total = (f"estimated {seconds / 3600:.3g} CPU-h" if unknown < len(fallbacks) else "CPU time unknown")
    if 0 < unknown < len(fallbacks):
        total += f", {unknown} not estimated"
    by: dict[str, list[Fallback]] = {}
    for fb in sorted(fallbacks, key=lambda f: f.item.path):
        by.setdefault(fb.category, []).append(fb)
    lines = [f"duelbench: computing {len(fallbacks)} shard(s) instead of reading them from the results archive "
             f"({total}):"]
    for category in sorted(by):
        lines.extend(_lines_of(category, by[category], listed))
    return lines

