"""The key reference of ``config/README.md``, generated from the configuration's JSON schemas.

``config/README.md`` has hand-written prose and, between the markers ``<!-- keys:begin -->``
and ``<!-- keys:end -->``, one table per schema of ``workflow/schemas/`` listing every key the
schema declares (its path, type, default and description, taken from the schema) and the
fields of a reading-variant declaration. ::

    python tools/config_readme.py           # rewrite the generated part of config/README.md
    python tools/config_readme.py --check   # exit 1 if it is not current

``tests/test_config_readme.py`` checks that the generated part is current and that every key of
``config/config.yaml`` is documented in it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import yaml

CHECKOUT = Path(__file__).resolve().parent.parent
SCHEMAS = CHECKOUT / "workflow" / "schemas"
MAIN_SCHEMA = "config.schema.yaml"
README = CHECKOUT / "config" / "README.md"
BEGIN, END = "<!-- keys:begin -->", "<!-- keys:end -->"

#: The fields of one entry of an experiment's ``readings`` list (duelbench.experiments.readings,
#: whose schema entry is a plain object): field -> description.
READING_FIELDS = {
    "id": "Identifier (`[a-z0-9_]+`, unique within the paper); the variant's outputs go to "
          "`<figures>/readings/<id>/<paper>/`. Required.",
    "items": "The registry items (e.g. `Figure 1`) whose checks are all scored under the variant. Required.",
    "reading": "The alternative reading, citing the paper's words and lines. Required.",
    "declared": "What it replaces: the declared reading, on which every status is decided. Required.",
    "overrides": "Settings of the paper's section changed by the variant (applied after the active "
                 "fidelity's overrides).",
    "algorithm_params": "algorithm -> parameters merged into every configured entry of that algorithm.",
    "aliases": "dataset -> dataset: renames datasets inside the registry's statistic names, so the same "
               "checks are scored on another instance.",
    "fidelities": "fidelity -> `{overrides: ...}`: replaces `overrides` at that fidelity.",
    "cost": "The declared compute estimate (free text), shown in the report.",
}
#: Descriptions of keys whose schema entry has none, by the key's last name (the same meaning in
#: every section); any other key without one refers to its parent's description.
GENERIC = {
    "name": "Algorithm registry name (`duelbench list`).",
    "params": "Parameter values overriding the algorithm's defaults (numbers).",
    "label": "Legend label (default: the algorithm's standard label).",
    "algorithms": "Algorithms (registry names or `{name, params, label}`), in legend order.",
    "algorithms[]": "One algorithm: a registry name or `{name, params, label}`.",
    "variants[]": "One labelled variant: `{name, params, label}`.",
    "algorithm": "Algorithm registry name.",
    "datasets": "Dataset registry names (`duelbench list`).",
    "horizon": "Horizon T: time steps of each run.",
    "runs": "Independent runs per cell or curve (run r draws from its own seeded stream).",
    "runs_per_shard": "Runs per simulation job (shard).",
    "samples": "Number of random samples drawn.",
    "samples_per_shard": "Samples per sample-shard job.",
    "seed": "Seed of the random streams (sample i or run r uses its own stream derived from it).",
    "delta": "Confidence parameter(s) delta of the algorithm runs.",
    "eps": "Accuracy parameter(s) epsilon of the PAC runs.",
    "instances": "Named instances (see the section's `instances`).",
    "instance": "A named instance (see the section's `instances`).",
    "batches": "Batch budgets B.",
    "baseline": "The sequential algorithm drawn as the reference line.",
    "K": "Number of arms.",
    "cases": "Random cases per cell.",
    "cells": "The study's cells.",
    "cells[]": "One cell of the study.",
    "variant": "Algorithm variant (V0 as printed, V1, V2; see the section's description).",
}
#: Keys below which a configuration holds free mappings (another section's keys, parameters):
#: documented as one entry each.
FREE_MAPPINGS = ("overrides", "algorithm_params", "aliases", "params", "instances")


def _resolve(node: Mapping, defs: Mapping) -> Mapping:
    """``node`` with a local ``$ref`` followed (its own keys win over the referenced ones)."""
    seen = set()
    while isinstance(node, Mapping) and "$ref" in node:
        ref = node["$ref"].rsplit("/", 1)[-1]
        if ref in seen or ref not in defs:
            break
        seen.add(ref)
        node = {**defs[ref], **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _type(node: Mapping, defs: Mapping) -> str:
    node = _resolve(node, defs)
    if "type" in node:
        t = node["type"]
        return " or ".join(map(str, t)) if isinstance(t, list) else str(t)
    if "enum" in node:
        return "one of " + ", ".join(map(str, node["enum"]))
    for key in ("oneOf", "anyOf"):
        if key in node:
            return " or ".join(dict.fromkeys(_type(n, defs) for n in node[key]))
    return "any"


def _children(node: Mapping, defs: Mapping) -> Iterator[tuple[str, Mapping]]:
    """(suffix, child) of every key a node declares: named properties, ``[]`` for the items of a
    list of objects, ``<name>`` for the values of a free-named mapping."""
    node = _resolve(node, defs)
    for branch in node.get("allOf", ()):  # inherited keys first
        yield from _children(branch, defs)
    for key in ("oneOf", "anyOf"):
        for branch in node.get(key, ()):
            branch = _resolve(branch, defs)
            if branch.get("type") == "object" or "properties" in branch:
                yield from _children(branch, defs)
    for name, child in (node.get("properties") or {}).items():
        yield f".{name}", child
    items = node.get("items")
    if isinstance(items, Mapping):
        items = _resolve(items, defs)
        if items.get("properties") or any(_resolve(b, defs).get("properties") for b in items.get("oneOf", ())):
            yield "[]", items
    extra = node.get("additionalProperties")
    if isinstance(extra, Mapping):
        extra = _resolve(extra, defs)
        if extra.get("properties") or extra.get("additionalProperties"):
            yield ".<name>", extra


def keys(schema: Mapping, prefix: str = "") -> list[dict]:
    """Every key ``schema`` declares, depth first: ``{key, type, default, description}``."""
    defs = schema.get("$defs", {})
    rows: list[dict] = []
    if prefix:  # an experiment section: its own row first
        rows.append({"key": prefix, "type": "object", "default": "",
                     "description": " ".join(str(schema.get("title", "")).split())})

    seen: set[str] = set()

    def walk(node: Mapping, path: str, depth: int) -> None:
        if depth > 8:
            return
        for suffix, child in _children(node, defs):
            key = (path + suffix).lstrip(".")
            resolved = _resolve(child, defs)
            desc = " ".join(str(child.get("description") or resolved.get("description") or "").split())
            if not desc:
                last = key.rsplit(".", 1)[-1]
                parent = key[: -len(last)].rstrip(".") or "the top level"
                desc = GENERIC.get(last) or f"Part of `{parent}`: see its description."
            rows.append({"key": key, "type": _type(child, defs),
                         "default": yaml.safe_dump(resolved["default"], default_flow_style=True).strip()
                         .removesuffix("...").strip() if "default" in resolved else "",
                         "description": desc})
            if key.rsplit(".", 1)[-1] not in FREE_MAPPINGS and key not in seen:
                seen.add(key)
                walk(child, key, depth + 1)

    walk(schema, prefix, 0)
    return rows


def schema_files() -> list[Path]:
    """The main schema first, then the experiment sections' schemas in name order."""
    others = sorted(p for p in SCHEMAS.glob("*.schema.yaml") if p.name != MAIN_SCHEMA)
    return [SCHEMAS / MAIN_SCHEMA, *others]


def documented_keys() -> set[str]:
    """Every key path the generated reference documents (experiment sections prefixed with
    their name; ``<name>`` for a free name, ``[]`` for a list's entries)."""
    out: set[str] = set()
    for path in schema_files():
        schema = yaml.safe_load(path.read_text(encoding="utf-8"))
        section = "" if path.name == MAIN_SCHEMA else path.name.removesuffix(".schema.yaml")
        for row in keys(schema, section):
            out.add(row["key"])
        if section and "readings" in (schema.get("properties") or {}):
            out.update(f"{section}.readings[].{f}" for f in READING_FIELDS)
    return out


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def generated() -> str:
    """The generated part of config/README.md (without the markers)."""
    lines = ["<!-- Generated by `python tools/config_readme.py` from workflow/schemas/*.schema.yaml: "
             "edit the schemas, then rerun it. -->", ""]
    for path in schema_files():
        schema = yaml.safe_load(path.read_text(encoding="utf-8"))
        section = "" if path.name == MAIN_SCHEMA else path.name.removesuffix(".schema.yaml")
        title = "Top level" if not section else f"`{section}`"
        lines += [f"### {title} (`workflow/schemas/{path.name}`)", ""]
        lines += [" ".join(str(schema.get("description", "")).split()), ""]
        lines += ["| key | type | default | description |", "|---|---|---|---|"]
        lines += [f"| `{r['key']}` | {_cell(r['type'])} | {_cell(r['default'] and '`' + r['default'] + '`')} | "
                  f"{_cell(r['description'])} |" for r in keys(schema, section)]
        if section and "readings" in (schema.get("properties") or {}):
            lines += [f"| `{section}.readings[].{f}` | | | {_cell(d)} |" for f, d in READING_FIELDS.items()]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def rendered(readme_text: str) -> str:
    """``readme_text`` with its generated part replaced by :func:`generated`."""
    head, sep, rest = readme_text.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise SystemExit(f"{README}: the markers {BEGIN} and {END} are missing")
    return f"{head}{BEGIN}\n{generated()}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if config/README.md is not current")
    args = parser.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    new = rendered(text)
    if args.check:
        if new != text:
            print(f"{README.relative_to(CHECKOUT)} is not current: run python tools/config_readme.py", file=sys.stderr)
            return 1
        return 0
    if new != text:
        README.write_text(new, encoding="utf-8")
        print(f"wrote {README.relative_to(CHECKOUT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
