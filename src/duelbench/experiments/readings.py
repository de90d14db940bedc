"""Reading sensitivity: the open readings of a paper, each run as a labelled variant of its plan.

Where a paper leaves a detail open, the suite declares one reading (the *declared* reading, the
one every status is decided on) and may run others as labelled variants. A paper's config
section lists them under ``readings``, in a commit before they run::

    readings:
      - id: savage_strict                       # [a-z0-9_]+, unique within the paper
        items: [Figure 1]                       # registry items whose checks are all scored
        reading: "SAVAGE's Indep test with <"   # the alternative, citing the paper
        declared: "<= (the declared reading)"   # what it replaces
        algorithm_params: {copeland_savage: {strict_independence: 1}}
        overrides: {}                           # merged into the paper's effective section
        aliases: {}                             # dataset -> dataset read by the check statistics
        fidelities: {quick: {overrides: {...}}} # per-fidelity replacement of `overrides`
        cost: "0.1 CPU-h at paper fidelity"     # the declared estimate

A reading variant is the paper's own plan built from a modified configuration
(:meth:`Reading.variant`, a :class:`~duelbench.experiments.variants.Variant`): ``overrides`` are applied after the active fidelity's overrides;
``algorithm_params`` are merged into every configured entry of the named algorithms (in any
``algorithms`` or ``variants`` list of the section); its tables and figures go to
``<figures root>/readings/<id>/<paper>/``. Simulation and sample shards are keyed by what they
compute, so the variant reuses every shard it shares with the declared reading and computes
only what differs. ``aliases`` rename datasets inside the registry's statistic names, so the
same checks can be scored on another instance (e.g. Figure 2 of Zoghi et al. on a generator
with other gaps).

The paper's plan then gets one more step, ``readings`` (:func:`write_table`): every check of
every scored item under the declared reading and under each variant, with the flips in both
directions, in ``readings.csv`` and ``readings.md``. The status stays on the declared reading.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from duelbench.config import ConfigError, effective_config, figures_root
from duelbench.provenance.sidecar import atomic_write_text
from duelbench.report.checks import load_registry, read_csv_rows
from duelbench.report.claim_rows import measured

from .aggregate import write_table as write_csv
from .contract import Item, Plan, Step, StepContext
from .variants import READINGS_KEY as KEY
from .variants import Variant

#: Keys of a reading declaration.
FIELDS = ("id", "items", "reading", "declared", "overrides", "algorithm_params", "aliases", "fidelities", "cost")
#: Columns of ``readings.csv``.
COLUMNS = ["reading", "item", "claim_id", "description",
           "declared_outcome", "declared_estimate", "declared_ci_low", "declared_ci_high",
           "variant_outcome", "variant_estimate", "variant_ci_low", "variant_ci_high", "flip", "variant_evidence"]
#: A variant's outcome for a check whose statistic it does not compute (it runs none of the
#: curves, panels or traces the check reads): no evidence either way, so never a flip.
NOT_MEASURED = "not measured"


@dataclass(frozen=True)
class Reading:
    """One declared reading variant of a paper (see the module docstring)."""

    experiment: str
    id: str
    items: tuple[str, ...]
    reading: str
    declared: str
    overrides: dict = field(default_factory=dict, hash=False, compare=False)
    algorithm_params: dict = field(default_factory=dict, hash=False, compare=False)
    aliases: dict = field(default_factory=dict, hash=False, compare=False)
    fidelities: dict = field(default_factory=dict, hash=False, compare=False)
    cost: str = ""

    def variant(self, config: Mapping) -> Variant:
        """This reading as a variant of its paper's plan under ``config``: the active fidelity's
        ``overrides`` (``fidelities``) or the reading's own, its algorithm parameters and aliases;
        tables and figures under ``<figures root>/readings/<id>``."""
        per_fidelity = self.fidelities.get(effective_config(config)["fidelity"]) or {}
        return Variant(experiment=self.experiment, label=self.id, figures=f"{figures_root(config)}/{KEY}/{self.id}",
                       overrides=per_fidelity.get("overrides", self.overrides),
                       algorithm_params=self.algorithm_params, aliases=self.aliases)


def declared(config: Mapping, experiment: str) -> list[Reading]:
    """The readings of ``experiment`` in ``config``; ConfigError naming the key on bad input."""
    section = config.get(experiment) or {}
    raw = section.get(KEY) or []
    where = f"{experiment}.{KEY}"
    if not isinstance(raw, list):
        raise ConfigError(f"{where}: a list of reading declarations, got {type(raw).__name__}")
    out, seen = [], set()
    for n, entry in enumerate(raw):
        key = f"{where}[{n}]"
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{key}: a mapping with keys {', '.join(FIELDS)}")
        unknown = sorted(set(entry) - set(FIELDS))
        if unknown:
            raise ConfigError(f"{key}: unknown keys {unknown}; known: {', '.join(FIELDS)}")
        for required in ("id", "items", "reading", "declared"):
            if not entry.get(required):
                raise ConfigError(f"{key}: '{required}' is required")
        rid = str(entry["id"])
        if not re.fullmatch(r"[a-z0-9_]+", rid) or rid in seen:
            raise ConfigError(f"{key}.id: {rid!r} must be [a-z0-9_]+ and unique within {experiment}")
        seen.add(rid)
        for mapping in ("overrides", "algorithm_params", "aliases", "fidelities"):
            if not isinstance(entry.get(mapping) or {}, Mapping):
                raise ConfigError(f"{key}.{mapping}: a mapping")
        out.append(Reading(experiment=experiment, id=rid, items=tuple(entry["items"]), reading=str(entry["reading"]),
                           declared=str(entry["declared"]), overrides=dict(entry.get("overrides") or {}),
                           algorithm_params=dict(entry.get("algorithm_params") or {}),
                           aliases=dict(entry.get("aliases") or {}), fidelities=dict(entry.get("fidelities") or {}),
                           cost=str(entry.get("cost") or "")))
    return out


def without(config: Mapping, experiment: str) -> dict:
    """``config`` without the readings of ``experiment`` (what its package plans from)."""
    section = config.get(experiment)
    if not isinstance(section, Mapping) or KEY not in section:
        return dict(config)
    return {**config, experiment: {k: v for k, v in section.items() if k != KEY}}


def find(config: Mapping, experiment: str, reading_id: str) -> Reading:
    for r in declared(config, experiment):
        if r.id == reading_id:
            return r
    raise ConfigError(f"{experiment}.{KEY}: no reading {reading_id!r}")


def reading_config(config: Mapping, reading: Reading) -> dict:
    """The configuration whose plan is ``reading``'s variant of its paper (:meth:`Reading.variant`)."""
    return reading.variant(config).config(config)


# --------------------------------------------------------------------------------------------
# the readings step of a paper's plan
# --------------------------------------------------------------------------------------------
def checks_path(plan) -> str:
    """The ``checks.csv`` written by the plan's ``checks`` step."""
    step = plan.step("checks")
    paths = [p for p in step.outputs.values() if p.endswith("/checks.csv")]
    if len(paths) != 1:
        raise ConfigError(f"{plan.name}: the checks step must write exactly one checks.csv, writes {paths}")
    return paths[0]


def with_readings(plan: Plan, config: Mapping, variant_plans: Mapping[str, Plan]) -> Plan:
    """``plan`` plus the ``readings`` step and item (when the paper declares readings)."""
    readings = declared(config, plan.name)
    if not readings:
        return plan
    folder = f"{figures_root(config)}/{plan.name}"
    out = {"csv": f"{folder}/readings.csv", "md": f"{folder}/readings.md"}
    inputs = {"declared": checks_path(plan),
              **{f"reading_{r.id}": checks_path(variant_plans[r.id]) for r in readings}}
    registry = plan.step("checks").inputs.get("registry")
    if registry is None:
        raise ConfigError(f"{plan.name}: the checks step must read its registry (input 'registry')")
    inputs["registry"] = registry
    step = Step("readings", write_table, inputs=inputs, outputs=out,
                settings={"readings": [dataclasses.asdict(r) for r in readings]},
                message=f"{plan.name}: every check of the scored items under each reading variant")
    lines = [f"{r.id}: {r.reading} (declared: {r.declared}; items {', '.join(r.items)}"
             + (f"; cost {r.cost}" if r.cost else "") + ")" for r in readings]
    item = Item("readings", "table", "Reading sensitivity",
                "Each reading the paper leaves open, run as a labelled variant and scored on every check of the "
                "items it concerns, next to the declared reading; flips in both directions are listed, the "
                "status stays on the declared reading. Variants (declared before they ran): " + "; ".join(lines)
                + ".", (out["md"], out["csv"]))
    return dataclasses.replace(plan, steps=[*plan.steps, step], items=[*plan.items, item])


def _rows(path: str) -> dict[str, dict]:
    return {r["claim_id"]: r for r in read_csv_rows(path)}


def flip(before: str, after: str) -> str:
    """``"pass -> fail"`` and the like; empty when the outcome is the same or the variant does
    not measure the check."""
    return "" if before == after or after == NOT_MEASURED else f"{before} -> {after}"


def outcome(row: Mapping) -> str:
    """The outcome of a checks.csv row; :data:`NOT_MEASURED` when the row has no estimate (the
    plan computed no statistic for it), ``missing`` when there is no row."""
    if not row:
        return "missing"
    return row.get("outcome", "missing") if row.get("estimate", "") != "" else NOT_MEASURED


def table_rows(readings: Sequence[Mapping], registry: Mapping, declared_rows: Mapping[str, Mapping],
               variant_rows: Mapping[str, Mapping[str, Mapping]]) -> list[dict]:
    """One row per (reading, check of a scored item): the declared and the variant outcome, each
    with its estimate and 95 % interval (``*_text``: as a person reads it, for readings.md)."""
    rows = []
    for r in readings:
        for item in r["items"]:
            checks = [c for c in registry.get("checks", []) if c.get("item") == item]
            if not checks:
                raise ConfigError(f"{r['experiment']}.{KEY} {r['id']}: item {item!r} has no check in the registry")
            for c in checks:
                d = declared_rows.get(c["id"], {})
                v = variant_rows[r["id"]].get(c["id"], {})
                before = d.get("outcome", "missing")
                after = outcome(v) if v else "missing"
                rows.append({"reading": r["id"], "item": item, "claim_id": c["id"], "description": c.get("description", ""),
                             "declared_outcome": before,
                             **{f"declared_{k}": d.get(k, "") for k in ("estimate", "ci_low", "ci_high")},
                             "variant_outcome": after,
                             **{f"variant_{k}": v.get(k, "") for k in ("estimate", "ci_low", "ci_high")},
                             "flip": flip(before, after), "variant_evidence": v.get("evidence", ""),
                             "declared_text": measured(d) if d else "-",
                             "variant_text": measured(v) if v and after != NOT_MEASURED else "-"})
    return rows


def markdown(experiment: str, readings: Sequence[Mapping], rows: Sequence[Mapping], fidelity: str) -> str:
    """``readings.md``: per reading, its declaration and the checks with their two outcomes."""
    lines = [f"# Reading sensitivity: {experiment} (fidelity `{fidelity}`)", "",
             "Each open reading runs as a labelled variant, declared before it ran, and is scored on every check "
             "of the items it concerns. The status of every item stays on the declared reading.", ""]
    for r in readings:
        mine = [x for x in rows if x["reading"] == r["id"]]
        flips = [x for x in mine if x["flip"]]
        unmeasured = sum(x["variant_outcome"] == NOT_MEASURED for x in mine)
        lines += [f"## `{r['id']}` ({', '.join(r['items'])})", "",
                  f"* Variant: {r['reading']}", f"* Declared: {r['declared']}"]
        if r.get("cost"):
            lines.append(f"* Declared cost: {r['cost']}")
        lines += [f"* Flips: {len(flips)} of {len(mine) - unmeasured} checks the variant measures"
                  + (" (" + "; ".join(f"`{x['claim_id']}` {x['flip']}" for x in flips) + ")" if flips else "")
                  + (f"; {unmeasured} checks read curves, panels or traces it does not run (not measured)"
                     if unmeasured else ""), "",
                  "| check | declared | variant | flip |", "|---|---|---|---|"]
        for x in mine:
            lines.append(f"| `{x['claim_id']}` | {x['declared_outcome']}, {x['declared_text']} | "
                         f"{x['variant_outcome']}, {x['variant_text']} | {x['flip'] or '-'} |")
        lines.append("")
    return "\n".join(lines)


def write_table(ctx: StepContext) -> dict:
    """Step ``readings``: ``readings.csv`` and ``readings.md``."""
    readings = ctx.step.settings["readings"]
    i = ctx.input
    registry = load_registry(i.registry)
    rows = table_rows(readings, registry, _rows(i.declared), {r["id"]: _rows(i[f"reading_{r['id']}"]) for r in readings})
    write_csv(pd.DataFrame(rows, columns=COLUMNS), ctx.output.csv)
    atomic_write_text(ctx.output.md, markdown(ctx.plan.name, readings, rows, ctx.settings.get("fidelity", "?")))
    for r in readings:
        n = sum(1 for x in rows if x["reading"] == r["id"] and x["flip"])
        print(f"{r['id']}: {n} flips", flush=True)
    return {"output": "readings"}
