"""The cells of the benchmark: every algorithm on every published regret instance.

An instance (:class:`~duelbench.experiments.instances.RegretInstance`) is a panel of a paper's
regret figure under that paper's protocol. A cell is one algorithm on one instance:

* the paper runs the algorithm there: the cell is the paper's own curve (its parameters, its
  shards, read from the results archive), source ``paper`` (on a row at a shorter horizon, the
  paper's parameters and new shards);
* otherwise the algorithm runs with the registry's default parameters under the same protocol,
  source ``benchmark``. The streams of a run depend on the seed and the job's identity only, so
  this is the run the paper would have made had it listed the algorithm.

A cell whose cost at the paper's protocol is beyond the benchmark's budget is *reduced* by a
declaration of the configuration (``benchmark.reduced``: fewer runs, the same streams' first
runs; a shorter horizon; or ``runs: 0``, not run), written before the cell ran. A cell at a
shorter horizon is not comparable with the others of its instance: it is shown, never ranked
(:attr:`Cell.ranked`). Where a panel's protocol is too costly for some algorithms, the panel can
also be declared again at a shorter horizon (``benchmark.shorter_horizons``): a further row,
tagged with its horizon, on which every algorithm runs and is ranked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from duelbench.config import AlgorithmEntry, ConfigError, algorithm_entries
from duelbench.data.registry import is_family
from duelbench.engine.jobs import ShardSpec

from ..instances import RegretInstance

NAME = "benchmark"
#: Where a cell's runs come from.
SOURCES = ("paper", "benchmark")


@dataclass(frozen=True)
class Cell:
    """One algorithm on one instance (see the module docstring)."""

    instance: RegretInstance
    entry: AlgorithmEntry
    source: str
    runs: int
    horizon: int
    reduction: str = ""
    #: the regret kinds the instance's paper archives its shards with (the cell's are the same)
    kinds: tuple[str, ...] = ("copeland",)

    @property
    def algorithm(self) -> str:
        return self.entry.name

    @property
    def ranked(self) -> bool:
        """Whether the cell is compared with the others of its instance: it ran, at the
        instance's horizon (fewer runs widen its intervals, a shorter horizon changes the
        quantity)."""
        return self.runs > 0 and self.horizon == self.instance.horizon

    def pairs_with(self, other: "Cell") -> bool:
        """Whether this cell's runs pair with ``other``'s run by run: on a family of per-run
        instances, run r of every cell meets instance r, so equal run counts pair."""
        return is_family(self.instance.dataset) and self.runs == other.runs

    def shards(self, fidelity: str, root: str) -> list[ShardSpec]:
        """The cell's shards (none for a cell declared not run)."""
        if self.runs == 0:
            return []
        return self.instance.shards(fidelity, root, self.algorithm, self.entry.params, runs=self.runs,
                                    horizon=self.horizon)


def instance_record(inst: RegretInstance, kinds: Sequence[str]) -> dict:
    """JSON-able form of an instance (settings hold it), with the regret ``kinds`` its paper's
    shards are archived with."""
    return {**{f.name: getattr(inst, f.name) for f in dataclasses.fields(inst) if f.name != "entries"},
            "entries": [{"name": e.name, "params": dict(e.params), "label": e.label} for e in inst.entries],
            "kinds": list(kinds)}


def instance_of(record: Mapping) -> RegretInstance:
    """The :class:`RegretInstance` of an :func:`instance_record`."""
    fields = {f.name for f in dataclasses.fields(RegretInstance)} - {"entries"}
    entries = tuple(algorithm_entries(record["entries"], where=f"{record['paper']}/{record['dataset']}"))
    return RegretInstance(**{k: record[k] for k in fields}, entries=entries)


def reduction_of(s: Mapping, inst: RegretInstance, algorithm: str) -> Mapping | None:
    """The declaration of ``benchmark.reduced`` that names (``inst``, ``algorithm``), or None."""
    if inst.tag:
        return None
    found = [r for r in s.get("reduced") or [] if r["dataset"] == inst.dataset
             and r.get("paper", inst.paper) == inst.paper and algorithm in r["algorithms"]]
    if len(found) > 1:
        raise ConfigError(f"{NAME}.reduced: {inst.id} / {algorithm} is reduced twice")
    return found[0] if found else None


def algorithm_names(s: Mapping) -> list[str]:
    """The registry names of ``benchmark.algorithms`` (names or ``{name, ...}`` entries, as a
    bench-all plan appends them), in order."""
    return [e.name for e in algorithm_entries(s["algorithms"], where=f"{NAME}.algorithms")]


def cells(s: Mapping) -> list[Cell]:
    """Every cell of the settings (instances in the papers' order, algorithms in
    ``benchmark.algorithms`` order)."""
    defaults = {e.name: e for e in algorithm_entries(s["algorithms"], where=f"{NAME}.algorithms")}
    out = []
    for record in s["instances"]:
        inst = instance_of(record)
        for name, default in defaults.items():
            own = inst.paper_entry(name)
            entry = own or default
            r = reduction_of(s, inst, name)
            runs = min(int(r.get("runs", inst.runs)), inst.runs) if r else inst.runs
            runs = 0 if r and int(r.get("runs", 1)) == 0 else runs
            horizon = min(int(r.get("horizon", inst.horizon)), inst.horizon) if r else inst.horizon
            why = str(r["reason"]) if r and (runs, horizon) != (inst.runs, inst.horizon) else ""
            out.append(Cell(inst, AlgorithmEntry(entry.name, entry.params, entry.param_hash),
                            "paper" if own and not inst.tag else "benchmark", runs, horizon, why,
                            tuple(record["kinds"])))
    return out


def horizon_text(t: int) -> str:
    """A horizon as the papers print it: ``10^6``, ``2·10^7``; any other with thousands separators."""
    k = len(str(t)) - 1
    lead, rest = divmod(t, 10 ** k)
    if k >= 3 and rest == 0:
        return f"10^{k}" if lead == 1 else f"{lead}·10^{k}"
    return f"{t:,}"


def shorter_horizon_records(s: Mapping, records: Sequence[Mapping]) -> list[dict]:
    """The rows of ``benchmark.shorter_horizons``: each named instance again at its ``horizon``
    (tag ``T=<horizon>``), with the declared ``reason``."""
    out = []
    for i, h in enumerate(s.get("shorter_horizons") or []):
        where = f"{NAME}.shorter_horizons[{i}]"
        found = [r for r in records if r["dataset"] == h["dataset"] and r["paper"] == h["paper"]]
        if not found:
            raise ConfigError(f"{where}: no instance {h['paper']}/{h['dataset']} among the papers' regret instances")
        t = int(h["horizon"])
        if t >= int(found[0]["horizon"]):
            raise ConfigError(f"{where}.horizon: {h['horizon']} is not below the protocol's {found[0]['horizon']}")
        out.append({**found[0], "horizon": t, "tag": f"T={t:.0e}",
                    "panel": f"{found[0]['panel']} at T = {horizon_text(t)}", "changed": str(h["reason"])})
    return out


def check_reductions(s: Mapping) -> None:
    """Every ``benchmark.reduced`` entry names a configured instance and algorithm."""
    ids = {(r["paper"], r["dataset"]) for r in s["instances"]}
    datasets = {d for _, d in ids}
    for i, r in enumerate(s.get("reduced") or []):
        where = f"{NAME}.reduced[{i}]"
        if r["dataset"] not in datasets or ("paper" in r and (r["paper"], r["dataset"]) not in ids):
            raise ConfigError(f"{where}: no instance {r.get('paper', '*')}/{r['dataset']} among the papers' regret "
                              f"instances ({', '.join(sorted(f'{p}/{d}' for p, d in ids))})")
        unknown = [a for a in r["algorithms"] if a not in algorithm_names(s)]
        if unknown:
            raise ConfigError(f"{where}.algorithms: {unknown} not in {NAME}.algorithms")
        if "runs" not in r and "horizon" not in r:
            raise ConfigError(f"{where}: give runs or horizon (what the reduction keeps; runs: 0, not run)")
