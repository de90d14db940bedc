"""Imports point one way: provenance at the bottom, then problems/stats, algorithms, engine,
experiments and report.  Every import counts, also one inside a function (it would only hide a
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
}
#: packages that no module of ``package`` may import (the layers above it)
FORBIDDEN_ABOVE = {
    "algorithms": {"engine", "experiments", "report", "cli", "bench"},
    "engine": {"experiments", "report", "cli", "bench"},
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
