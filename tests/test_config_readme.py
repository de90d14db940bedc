"""config/README.md documents every configuration key: its generated tables are current with the
schemas (tools/config_readme.py), and every key that config/config.yaml sets is in them."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import yaml

CHECKOUT = Path(__file__).resolve().parent.parent


def _tool():
    spec = importlib.util.spec_from_file_location("config_readme", CHECKOUT / "tools" / "config_readme.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TOOL = _tool()


def _paths(value, path: str) -> Iterator[str]:
    """Every key path below ``value`` (``[]`` for list entries); nothing below a free mapping."""
    if isinstance(value, Mapping):
        for key, child in value.items():
            sub = f"{path}.{key}" if path else str(key)
            yield sub
            if key not in TOOL.FREE_MAPPINGS:
                yield from _paths(child, sub)
    elif isinstance(value, list):
        for child in value:
            if isinstance(child, Mapping):
                yield from _paths(child, f"{path}[]")


def config_keys(config: Mapping) -> set[str]:
    """The key paths config.yaml sets, as the reference names them: a fidelity's name is
    ``<name>``; the keys a fidelity's or a reading's ``overrides`` set are also those of the
    section they override."""
    out = set()
    for key, value in config.items():
        if key == "fidelities":
            out.add("fidelities")
            for fidelity in value.values():
                out.update(p.replace("fidelities.", "fidelities.<name>.", 1) for p in _paths(fidelity, "fidelities"))
                out.update(_paths(fidelity.get("overrides") or {}, ""))
            continue
        out.add(key)
        readings = (value.get("readings") or []) if isinstance(value, Mapping) else []
        out.update(_paths({k: v for k, v in value.items() if k != "readings"} if readings else value, key))
        for reading in readings:  # its fields, and the section keys its overrides set
            out.add(f"{key}.readings")
            out.update(f"{key}.readings[].{field}" for field in reading)
            out.update(_paths(reading.get("overrides") or {}, key))
            for fid in (reading.get("fidelities") or {}).values():
                out.update(_paths(fid.get("overrides") or {}, key))
    return out


def test_generated_key_tables_are_current():
    text = (CHECKOUT / "config" / "README.md").read_text(encoding="utf-8")
    assert TOOL.rendered(text) == text, "config/README.md is not current: run python tools/config_readme.py"


def test_every_key_of_config_yaml_is_documented():
    config = yaml.safe_load((CHECKOUT / "config" / "config.yaml").read_text(encoding="utf-8"))
    documented = TOOL.documented_keys()
    missing = sorted(k for k in config_keys(config) if k not in documented)
    assert not missing, f"keys of config/config.yaml missing from config/README.md's tables: {missing}"


def test_every_schema_key_is_in_the_readme():
    text = (CHECKOUT / "config" / "README.md").read_text(encoding="utf-8")
    shown = set(re.findall(r"^\| `([^`]+)` \|", text, flags=re.M))
    assert TOOL.documented_keys() <= shown
    assert len(shown) > 250  # every section's keys, not only the top level
    undescribed = re.findall(r"^\| `([^`]+)` \|[^|]*\|[^|]*\| *\|$", text, flags=re.M)
    assert not undescribed, f"keys without a description: {undescribed}"
