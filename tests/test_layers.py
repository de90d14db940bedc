"""Imports point one way: provenance at the bottom, then problems/stats, data, algorithms,
config, engine, online use, the verdict layer (report), experiments, and the command line on top.  Every import counts, also one inside a function (it would only hide a
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
    # the algorithms driven one comparison at a time, on the engine's random streams
    "online": {"provenance", "problems", "stats", "data", "algorithms", "archive", "config", "engine"},
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


def _experiment_module_imports() -> dict[str, set[str]]:
    """Module of ``duelbench.experiments`` (relative path) -> the modules of ``experiments`` it imports."""
    root = codehash.PACKAGE_ROOT / "experiments"
    out = {}
    for path in sorted(root.rglob("*.py")):
        deps = set()
        for module, name, level in codehash._parse(path)[1]:
            for dep in codehash._resolve(path, module, name, level):
                rel = dep.resolve().relative_to(codehash.PACKAGE_ROOT)
                if rel.parts[0] == "experiments":
                    deps.add(str(rel.relative_to("experiments")))
        out[str(path.relative_to(root))] = deps
    return out


def test_no_paper_imports_another_paper():
    """A paper's package imports the framework (the modules of ``experiments/`` itself), never
    another paper's package: what two papers share lives in the framework."""
    bad = {}
    for module, deps in _experiment_module_imports().items():
        paper = module.split("/")[0] if "/" in module else None
        if paper is None:
            continue
        other = sorted(d for d in deps if "/" in d and d.split("/")[0] != paper)
        if other:
            bad[module] = other
    assert not bad, bad


def test_the_framework_imports_no_paper():
    """The framework's modules (``experiments/*.py``) import no paper package: papers declare
    into the framework, never the other way round."""
    bad = {m: sorted(d for d in deps if "/" in d) for m, deps in _experiment_module_imports().items()
           if "/" not in m and any("/" in d for d in deps)}
    assert not bad, bad


def test_no_import_cycle_inside_the_framework():
    """The framework's own modules import each other in one direction (contract -> variants ->
    readings/bench_all -> planning), so a reader can follow a step from the rule down."""
    graph = {m: {d for d in deps if "/" not in d and d != m} for m, deps in _experiment_module_imports().items()
             if "/" not in m}
    seen, stack, cycles = set(), [], []

    def visit(m):
        if m in stack:
            cycles.append(" -> ".join(stack[stack.index(m):] + [m]))
            return
        if m in seen:
            return
        seen.add(m)
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            visit(d)
        stack.pop()

    for m in sorted(graph):
        visit(m)
    assert not cycles, cycles
