"""The compiled cache can never serve stale code, and the closure hash follows behaviour only.

The end-to-end tests copy the package into a temporary folder, fill a numba cache from it, edit
one file of the copy and run a *fresh* process on the same (warm) cache: its result must equal a
run of the edited code that no cache can serve (interpreted, ``NUMBA_DISABLE_JIT=1``; the
compiled and interpreted runs give the same bits, checked on the unedited code) and differ from
the unedited result.  numba alone keys a cached
function on its own file, so before the closure-keyed locator the first and third edit (a shared
kernel, a statistics helper two calls below the algorithm) were served the old machine code.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import pytest

from duelbench.provenance import codehash
from duelbench.provenance.compiled_cache import ClosureKeyedCacheLocator, locator_of

SRC = Path(codehash.PACKAGE_ROOT)

RUN_SCRIPT = textwrap.dedent("""
    import hashlib, json, sys, warnings
    warnings.simplefilter("ignore")
    import numba
    import duelbench
    from duelbench.algorithms import rucb
    r = duelbench.simulate("rucb", "arxiv", 3000, 2, seed=1, record_pairs=True)
    digest = hashlib.sha256(r.pairs.tobytes() + r.regret.tobytes()).hexdigest()
    out = {"digest": digest, "module": rucb.__file__}
    if not numba.config.DISABLE_JIT:
        from duelbench.engine import loop
        from duelbench.provenance.compiled_cache import locator_of
        out["cache"] = [locator_of(rucb.select)._cache_path, locator_of(loop.run_steps)._cache_path,
                        loop.loop_key("rucb")]
    print(json.dumps(out))
""")

#: (file inside the package, text to replace, replacement): each changes RUCB's pairs.
EDITS = {
    # a shared kernel: same law of the outcome, other realisations
    "shared_kernel": ("algorithms/kernels.py", "return rng.random() < P[i, j]", "return rng.random() >= 1.0 - P[i, j]"),
    # the algorithm's own file
    "algorithm_file": ("algorithms/rucb.py", "log_t = math.log(t)", "log_t = math.log(t + 1)"),
    # a statistics helper two calls below the algorithm (rucb -> confident_beats -> bounds.evidence)
    "stats_two_deep": ("stats/bounds.py", "return n * d * d / alpha", "return n * d * d / (alpha * 1.25)"),
}


def _run(src_root: Path, cache: Path | None = None, log: list | None = None) -> dict:
    """Run RUN_SCRIPT on the package in ``src_root``: compiled with the numba cache ``cache``, or
    interpreted (``NUMBA_DISABLE_JIT=1``: no compiled code, so no cache to serve stale code from)
    when ``cache`` is None; ``log`` receives numba's cache messages (loaded/saved entries)."""
    env = dict(os.environ, PYTHONPATH=str(src_root))
    if cache is None:
        env["NUMBA_DISABLE_JIT"] = "1"
    else:
        env["NUMBA_CACHE_DIR"] = str(cache)
        env.pop("NUMBA_DISABLE_JIT", None)
    if log is not None:
        env["NUMBA_DEBUG_CACHE"] = "1"
    proc = subprocess.run([sys.executable, "-c", RUN_SCRIPT], env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    if log is not None:
        log.extend(line for line in lines if line.startswith("[cache]"))
    out = json.loads(lines[-1])
    assert out["module"].startswith(str(src_root)), out  # the copy is what ran
    return out


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory):
    """A copy of the package and a cache filled from it: (src root, warm cache, pristine result)."""
    root = tmp_path_factory.mktemp("pkg")
    shutil.copytree(SRC, root / "duelbench", ignore=shutil.ignore_patterns("__pycache__"))
    warm = root.parent / (root.name + "-cache")
    pristine = _run(root, warm)
    assert _run(root)["digest"] == pristine["digest"], "compiled and interpreted runs differ"
    return root, warm, pristine


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_edit_in_the_closure_is_never_served_stale(package_copy, edit):
    root, warm, pristine = package_copy
    rel, old, new = EDITS[edit]
    path = root / "duelbench" / rel
    original = path.read_text()
    assert original.count(old) == 1, f"{rel}: the edited text must occur exactly once"
    path.write_text(original.replace(old, new))
    try:
        edited_warm = _run(root, warm)
        edited = _run(root)
    finally:
        path.write_text(original)
    assert edited["digest"] != pristine["digest"], "the edit must change the result"
    assert edited_warm["digest"] == edited["digest"], f"stale compiled code served after editing {rel}"
    assert edited_warm["cache"] != pristine["cache"]
    # and the unedited code finds its own entries again
    assert _run(root, warm)["digest"] == pristine["digest"]


def test_a_checkout_elsewhere_loads_the_compiled_code_instead_of_compiling(package_copy, tmp_path):
    """The same code at another path (a worktree, a test's copy) shares the cache: it loads
    every entry and compiles nothing."""
    root, warm, pristine = package_copy
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(root / "duelbench", elsewhere / "duelbench", ignore=shutil.ignore_patterns("__pycache__"))
    log: list[str] = []
    moved = _run(elsewhere, warm, log)
    assert moved["digest"] == pristine["digest"] and moved["cache"] == pristine["cache"]
    assert any("data loaded" in line for line in log), log
    assert not [line for line in log if "data saved" in line]


def _compiled_dispatchers():
    import importlib
    import pkgutil

    import duelbench

    for info in pkgutil.walk_packages(duelbench.__path__, "duelbench."):
        if ".experiments" in info.name or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if isinstance(obj, numba.core.registry.CPUDispatcher) and obj.__module__ == info.name:
                yield info.name, obj


def test_every_cached_kernel_of_the_package_uses_the_closure_keyed_locator():
    seen = 0
    for name, disp in _compiled_dispatchers():
        if not disp._can_compile or getattr(disp, "_cache", None) is None:
            continue
        if type(disp._cache).__name__ == "NullCache":
            continue
        seen += 1
        assert isinstance(locator_of(disp), ClosureKeyedCacheLocator), f"{name}.{disp.__name__}"
    assert seen > 50


def test_closure_of_an_algorithm_follows_its_imports():
    files = {codehash.module_name(f) for f in codehash.import_closure(SRC / "algorithms" / "rucb.py")}
    assert {"duelbench.algorithms.rucb", "duelbench.stats.bounds",
            "duelbench.stats.confident_beats", "duelbench.stats.heap", "duelbench.stats.counts",
            "duelbench.algorithms.registry", "duelbench.stats.choice"} <= files
    loop = {codehash.module_name(f) for f in codehash.import_closure(SRC / "engine" / "loop.py")}
    assert "duelbench.algorithms.kernels" in loop and "duelbench.algorithms.rucb" not in loop  # see loop_key
    assert "duelbench.experiments" not in files and "duelbench.provenance.sidecar" not in files


def _hash_of_edited(tmp_path, rel, transform):
    root = tmp_path / "src"
    shutil.copytree(SRC, root / "duelbench", ignore=shutil.ignore_patterns("__pycache__"))
    target = root / "duelbench" / rel
    target.write_text(transform(target.read_text()))
    # hash the copy with this module's code: the copy's package root differs
    script = (f"import sys; sys.path.insert(0, {str(root)!r}); from duelbench.provenance import codehash; "
              f"print(codehash.closure_hash({str(root / 'duelbench' / 'algorithms' / 'rucb.py')!r}))")
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_closure_hash_ignores_comments_and_docstrings_but_not_code(tmp_path):
    base = _hash_of_edited(tmp_path / "a", "stats/bounds.py", lambda s: s)
    commented = _hash_of_edited(tmp_path / "b", "stats/bounds.py",
                                lambda s: s.replace('"""Upper confidence bound', '"""Upper (reworded) bound')
                                .replace("import math\n", "import math  # a comment\n\n"))
    changed = _hash_of_edited(tmp_path / "c", "stats/bounds.py", lambda s: s.replace("return 2.0", "return 2.5"))
    assert base == commented
    assert base != changed


def test_closure_hash_of_a_plugin_covers_the_package_modules_it_imports(tmp_path):
    plugin = tmp_path / "my_alg.py"
    plugin.write_text("from duelbench.algorithms.kernels import duel\nimport numpy as np\n")
    files = [codehash.module_name(f) or f.name for f in codehash.import_closure(plugin)]
    assert files[0] == "my_alg.py" and "duelbench.algorithms.kernels" in files
    assert hashlib.sha256 and len(codehash.closure_hash(plugin)) == 64


def test_a_memoised_closure_follows_an_edit_of_its_files(tmp_path):
    """import_closure is memoised per process and revalidated by the files' stat: an edit that
    adds an import (or changes code) is seen by the next call in the same process."""
    plugin = tmp_path / "my_alg.py"
    plugin.write_text("import numpy as np\n")
    before = codehash.closure_hash(plugin)
    assert codehash.import_closure(plugin) == [plugin.resolve()]
    plugin.write_text("import numpy as np\nfrom duelbench.stats.kl import kl_bernoulli\n")
    os.utime(plugin, ns=(plugin.stat().st_atime_ns, plugin.stat().st_mtime_ns + 10**9))  # a coarse clock
    files = [codehash.module_name(f) or f.name for f in codehash.import_closure(plugin)]
    assert "duelbench.stats.kl" in files
    assert codehash.closure_hash(plugin) != before
    plugin.unlink()
    with pytest.raises(OSError):
        codehash.import_closure(plugin)


def test_the_disk_cache_of_analyses_is_content_addressed(tmp_path, monkeypatch):
    """Each file's analysis is stored under the sha256 of its bytes: a new process reuses it,
    an edit is a new entry, a corrupt entry is recomputed, not trusted."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    plugin = tmp_path / "my_alg.py"
    plugin.write_text("import numpy as np\nx = 1\n")
    first = codehash.closure_hash(plugin)
    entry = codehash._store() / f"{hashlib.sha256(plugin.read_bytes()).hexdigest()}.json"
    assert entry.is_file() and json.loads(entry.read_text())["normalised"] == "import numpy as np\nx = 1"
    codehash._parsed.cache_clear()  # as in a new process
    entry.write_text("{not json")
    assert codehash.closure_hash(plugin) == first
    plugin.write_text("import numpy as np\nx = 2\n")
    codehash._parsed.cache_clear()
    assert codehash.closure_hash(plugin) != first
    assert len(list(codehash._store().glob("*.json"))) == 2


def test_simulation_code_hash_leaves_out_provenance_and_optionally_the_loaders():
    from duelbench.algorithms.registry import NOT_SIMULATION_CODE, get_algorithm
    from duelbench.provenance.codehash import import_closure, module_file

    roots = (get_algorithm("rucb").module_file, module_file("duelbench.engine.simulate"))
    full = {codehash.module_name(f) for f in import_closure(*roots)}
    sim = {codehash.module_name(f) for f in import_closure(*roots, exclude=NOT_SIMULATION_CODE)}
    nodata = {codehash.module_name(f) for f in import_closure(*roots, exclude=NOT_SIMULATION_CODE + ("duelbench.data",))}
    assert "duelbench.provenance.codehash" in full and not any(m.startswith("duelbench.provenance") for m in sim)
    assert "duelbench.data.registry" in sim and not any(m.startswith("duelbench.data") for m in nodata)
    assert {"duelbench.engine.loop", "duelbench.problems.regret", "duelbench.algorithms.rucb"} <= nodata
