"""Imports point one way: provenance at the bottom, then problems/stats, data, algorithms,
config, engine, the verdict layer (report), experiments, and the command line on top.  Every import counts, also one inside a function (it would only hide a
cycle), read statically with the same import parser as the code hash."""

from __future__ import annotations

import pytest

from duelbench.provenance import codehash

#: package -> the duelbench packages it may import (besides itself and the top-level package).
ALLOWED = {
    "provenance": set(),
    "archive": {"provenance"},
    "problems": {"provenance"},
    "stats": {"provenance"},
    "data": {"provenance", "problems"},
    "bounds": {"provenance", "problems", "stats"},
    "config": {"provenance", "problems", "data", "algorithms"},
    "engine": {"provenance", "problems", "stats", "data", "algorithms", "archive", "config"},
    # checks, verdicts, statuses and Markdown: what the experiments hand over, never the experiments
    "report": {"provenance", "config"},
}
#: packages that no module of ``package`` may import (the layers above it)
FORBIDDEN_ABOVE = {
    "algorithms": {"engine", "experiments", "report", "cli", "bench", "config"},
    "engine": {"experiments", "report", "cli", "bench"},
    "report": {"experiments", "engine", "cli", "bench"},
}


def _imports_of(package: str) -> dict[str, set[str]]:
    """Module file -> the duelbench subpackages (first component) it imports."""
    out = {}
    for path in sorted((codehash.PACKAGE_ROOT / package).rglob("*.py")):
        deps = set()
        for module, name, level in codehash._parse(path)[1]:
            for dep in codehash._resolve(path, module, name, level):
                parts = codehash.module_name(dep).split(".")
                if len(parts) > 1:
                    deps.add(parts[1])
        out[str(path.relative_to(codehash.PACKAGE_ROOT))] = deps - {package}
    return out


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_lower_layers_import_only_layers_below(package):
    bad = {f: sorted(deps - ALLOWED[package]) for f, deps in _imports_of(package).items() if deps - ALLOWED[package]}
    assert not bad, f"{package} imports layers above it: {bad}"


@pytest.mark.parametrize("package", sorted(FORBIDDEN_ABOVE))
def test_algorithms_and_engine_do_not_import_upper_layers(package):
    bad = {f: sorted(deps & FORBIDDEN_ABOVE[package]) for f, deps in _imports_of(package).items()
           if deps & FORBIDDEN_ABOVE[package]}
    assert not bad, f"{package} imports layers above it: {bad}"


def test_every_package_import_resolves_to_a_module():
    """A moved or renamed module leaves no import behind (also inside functions, where only the
    call that runs it would fail)."""
    broken = []
    for path in sorted(codehash.PACKAGE_ROOT.rglob("*.py")):
        for module, name, level in codehash._parse(path)[1]:
            if (level or module.split(".")[0] == codehash.PACKAGE) and not codehash._resolve(path, module, name, level):
                broken.append(f"{path.relative_to(codehash.PACKAGE_ROOT)}: {'.' * level}{module} {name or ''}")
    assert not broken, broken


def test_no_two_subpackages_import_each_other():
    """No cycle between two ``duelbench`` subpackages (through any of their modules)."""
    root = codehash.PACKAGE_ROOT

    def subpackage(path):
        rel = path.resolve().relative_to(root).parts
        return rel[0] if len(rel) > 1 else None  # None: the top-level package and its plain modules

    deps = {}
    for path in sorted(root.rglob("*.py")):
        mine = subpackage(path)
        if mine is None:
            continue
        for module, name, level in codehash._parse(path)[1]:
            for dep in codehash._resolve(path, module, name, level):
                theirs = subpackage(dep)
                if theirs not in (None, mine):
                    deps.setdefault(mine, {}).setdefault(theirs, str(path.relative_to(root)))
    cycles = [f"{a} <-> {b} ({deps[a][b]}; {deps[b][a]})" for a in deps for b in deps[a]
              if a < b and a in deps.get(b, {})]
    assert not cycles, cycles
