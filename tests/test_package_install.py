"""The package as a user installs it: the sdist and the wheel, built offline from this checkout,
pass ``twine check``, and the wheel, installed in a fresh virtual environment with no
repository beside it, lists the algorithms and datasets, simulates and drives an online policy
without the workflow's dependencies.

Nothing is downloaded: ``python -m build --no-isolation`` builds with the locked setuptools
(through setuptools' own build hooks when ``build`` is not installed), the fresh environment
sees the locked packages through a ``.pth`` file naming this environment's site-packages (whose
``.pth`` files, among them the editable install of this checkout, are not processed there), and
the wheel is installed with ``pip install --no-deps --no-index``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tarfile
import tomllib
import venv
import zipfile
from pathlib import Path

import numpy as np
import pytest

import duelbench
from duelbench import cli, package_data

ROOT = Path(__file__).resolve().parent.parent
#: Environment variables that would point the fresh environment back at this checkout.
CHECKOUT_VARIABLES = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "DUELBENCH_ROOT",
                      "DUELBENCH_DATA_DIR", "DUELBENCH_PLUGIN_PATH", "DUELBENCH_ARCHIVE")

pytestmark = pytest.mark.timeout(900)


def _run(cmd, **kwargs) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kwargs)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc


def _plain_env(**extra) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CHECKOUT_VARIABLES}
    return {**env, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1", **extra}


# --------------------------------------------------------------------------- building
@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> dict[str, Path]:
    """``{"sdist": ..., "wheel": ...}``: the sdist built from the checkout, the wheel from the sdist
    (as ``python -m build`` does). setuptools' metadata folder goes to the temporary folder (an
    extra setuptools configuration file), so the build writes nothing into the checkout."""
    tmp = tmp_path_factory.mktemp("build")
    out = tmp / "dist"
    config = tmp / "setuptools.cfg"
    config.write_text(f"[egg_info]\negg_base = {tmp / 'egg-base'}\n", encoding="utf-8")
    (tmp / "egg-base").mkdir()
    env = _plain_env(DIST_EXTRA_CONFIG=str(config))
    if importlib.util.find_spec("build") is not None:
        _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", out, ROOT], env=env, cwd=tmp, timeout=600)
    else:  # the PEP 517 hooks `build` calls, in the same order
        hook = "import sys; from setuptools import build_meta as b; print(getattr(b, sys.argv[1])(sys.argv[2]))"
        sdist = out / _run([sys.executable, "-c", hook, "build_sdist", out], env=env, cwd=ROOT,
                           timeout=600).stdout.split()[-1]
        with tarfile.open(sdist) as tar:
            tar.extractall(tmp / "sdist", filter="data")
        (unpacked,) = (tmp / "sdist").iterdir()
        _run([sys.executable, "-c", hook, "build_wheel", out], env=env, cwd=unpacked, timeout=600)
    (sdist,) = out.glob("duelbench-*.tar.gz")
    (wheel,) = out.glob("duelbench-*-py3-none-any.whl")
    return {"sdist": sdist, "wheel": wheel}


def _sdist_names(sdist: Path) -> set[str]:
    with tarfile.open(sdist) as tar:
        return {name.partition("/")[2] for name in tar.getnames()}


def _packaged_sources() -> list[str]:
    """The data files of the checkout that the wheel carries (``package_data.FOLDERS``)."""
    return sorted({f"data/{folder}/{f.name}" for folder, patterns in package_data.FOLDERS.items()
                   for pattern in patterns for f in (ROOT / "data" / folder).glob(pattern)})


def test_the_sdist_holds_what_the_build_needs_and_nothing_big(dists):
    names = _sdist_names(dists["sdist"])
    for required in ("pyproject.toml", "setup.py", "README.md", "LICENSE", "CITATION.cff", "PKG-INFO",
                     "src/duelbench/__init__.py", "src/duelbench/package_data.py", "src/duelbench/cli.py"):
        assert required in names, f"the sdist lacks {required}"
    tracked_modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "src").rglob("*.py")
                       if "__pycache__" not in p.parts}
    assert tracked_modules <= names, f"modules missing from the sdist: {sorted(tracked_modules - names)}"
    assert set(_packaged_sources()) <= names
    assert not {n for n in names if n.split("/")[0] in ("archive", "figures", "results", "tests", "workflow", ".venv")}
    assert not {n for n in names if n.startswith(("data/published/", "data/verdicts/", "data/mslr/"))}
    assert dists["sdist"].stat().st_size < 2_000_000


def test_the_wheel_carries_the_package_and_its_data(dists):
    with zipfile.ZipFile(dists["wheel"]) as whl:
        names = set(whl.namelist())
        metadata = whl.read(f"duelbench-{duelbench.__version__}.dist-info/METADATA").decode("utf-8")
    assert "duelbench/__init__.py" in names and "duelbench/algorithms/rucb.py" in names
    for source in _packaged_sources():
        assert f"duelbench/_checkout/{source}" in names, f"the wheel lacks {source}"
    assert not [n for n in names if n.endswith((".pyc", ".npz")) or "/tests/" in n]
    assert f"\nVersion: {duelbench.__version__}\n" in metadata
    requires = [line.removeprefix("Requires-Dist: ") for line in metadata.splitlines()
                if line.startswith("Requires-Dist: ")]
    assert not [r for r in requires if r.startswith("snakemake") and "extra ==" not in r]
    assert any(r.startswith("snakemake") and 'extra == "workflow"' in r for r in requires)
    assert dists["wheel"].stat().st_size < 2_000_000


def test_twine_check_passes(dists):
    if importlib.util.find_spec("twine") is None:
        pytest.fail("twine is not installed: requirements-test.lock pins it, which `make venv` installs")
    proc = _run([sys.executable, "-m", "twine", "check", "--strict", dists["sdist"], dists["wheel"]],
                env=_plain_env(), timeout=300)
    assert proc.stdout.count("PASSED") == 2, proc.stdout


# --------------------------------------------------------------------------- a fresh environment
@pytest.fixture(scope="module")
def clean_venv(tmp_path_factory, dists) -> Path:
    """A new virtual environment holding the wheel; it sees the locked packages of this one."""
    root = tmp_path_factory.mktemp("venv")
    env_dir = root / "env"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                        env=_plain_env(), timeout=120).stdout.strip())
    # this environment's packages (requirements.lock): its site-packages folders, not the folders
    # their .pth files add (the editable install's src/ of this checkout)
    locked = [p for p in dict.fromkeys(sys.path) if Path(p).name in ("site-packages", "dist-packages")
              and Path(p).is_dir()]
    assert locked, sys.path
    (purelib / "zz-locked-environment.pth").write_text("".join(f"{p}\n" for p in locked), encoding="utf-8")
    _run([python, "-m", "pip", "install", "--no-deps", "--no-index", dists["wheel"]], env=_plain_env(), timeout=300)
    return env_dir


@pytest.fixture(scope="module")
def numba_cache(tmp_path_factory) -> str:
    """The fresh environment's compiled-function cache (its package compiles anew)."""
    return str(tmp_path_factory.mktemp("numba_cache"))


#: Run in the fresh environment: the library without the workflow's dependencies. A finder
#: refuses to import them and records every attempt.
LIBRARY_SCRIPT = r"""
import importlib.abc, importlib.metadata, json, sys

WORKFLOW = set(sys.argv[1].split(","))
attempts = []

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in WORKFLOW:
            attempts.append(name)
            raise ModuleNotFoundError(f"No module named {name!r} (refused by the test)", name=name)
        return None

sys.meta_path.insert(0, Refuse())

import duelbench
from duelbench.data import paths

out = {"file": duelbench.__file__, "version": duelbench.__version__,
       "dist_version": importlib.metadata.version("duelbench"),
       "dist_location": str(importlib.metadata.distribution("duelbench").locate_file("")),
       "root": str(paths.project_root()), "data_dir": str(paths.data_dir()),
       "algorithms": duelbench.list_algorithms(), "datasets": duelbench.list_datasets()}
result = duelbench.simulate("rucb", "sushi", horizon=300, runs=2, seed=0)
out["regret"] = result.regret.tolist()
from duelbench.data import paper_matrices
out["source"] = str(paper_matrices.read_printed("sushi").csv_path)
policy = duelbench.policy("dts", K=5, seed=0)
pairs = []
for _ in range(30):
    i, j = policy.select()
    policy.update(i, j, i <= j)
    pairs.append([int(i), int(j)])
out["pairs"] = pairs
if len(sys.argv) > 2:  # an MSLR dataset: copied from the mirror into ./data/mslr
    out["mslr_sha256"] = duelbench.load_matrix(sys.argv[2]).sha256
out["attempts"] = attempts
out["workflow_modules_loaded"] = sorted(m for m in sys.modules if m.partition(".")[0] in WORKFLOW)
print(json.dumps(out))
"""


def _policy_pairs() -> list[list[int]]:
    policy = duelbench.policy("dts", K=5, seed=0)
    pairs = []
    for _ in range(30):
        i, j = policy.select()
        policy.update(i, j, i <= j)
        pairs.append([int(i), int(j)])
    return pairs


def test_the_wheel_works_without_a_checkout_or_the_workflow(clean_venv, numba_cache, tmp_path, monkeypatch):
    work = tmp_path / "work"  # an empty folder: no repository beside the installed package
    work.mkdir()
    env = _plain_env(NUMBA_CACHE_DIR=numba_cache)
    mirror = os.environ.get("DUELBENCH_DATA_MIRROR")
    mslr = ["mslr5_condorcet"] if mirror and Path(mirror).is_dir() else []
    if mirror and not mslr:
        env.pop("DUELBENCH_DATA_MIRROR")
    proc = _run([clean_venv / "bin" / "python", "-c", LIBRARY_SCRIPT, ",".join(cli.WORKFLOW_MODULES), *mslr],
                cwd=work, env=env, timeout=600)
    out = json.loads(proc.stdout.splitlines()[-1])

    site = clean_venv.resolve()
    assert Path(out["file"]).resolve().is_relative_to(site), out["file"]
    assert Path(out["dist_location"]).resolve().is_relative_to(site)
    assert out["version"] == out["dist_version"] == duelbench.__version__
    assert Path(out["root"]) == Path(out["file"]).parent / "_checkout"
    assert Path(out["data_dir"]) == work.resolve() / "data"
    assert out["attempts"] == [] and out["workflow_modules_loaded"] == []

    from duelbench.algorithms.registry import list_algorithms
    from duelbench.data.registry import list_datasets

    assert out["algorithms"] == list_algorithms()
    assert out["datasets"] == list_datasets()
    assert Path(out["source"]).resolve().is_relative_to(site)
    # the same numbers as this checkout's code
    expected = duelbench.simulate("rucb", "sushi", horizon=300, runs=2, seed=0).regret
    assert np.array(out["regret"]).tobytes() == expected.tobytes()
    assert out["pairs"] == _policy_pairs()
    if mslr:
        monkeypatch.setenv("DUELBENCH_DATA_DIR", str(tmp_path / "checkout_data"))  # the checkout's data/ untouched
        assert out["mslr_sha256"] == duelbench.load_matrix(mslr[0]).sha256
        assert list((work / "data" / "mslr").glob("*.npz")), "the MSLR file goes to ./data/mslr"


def test_the_command_of_the_wheel(clean_venv, numba_cache, tmp_path):
    env = _plain_env(NUMBA_CACHE_DIR=numba_cache)
    command = clean_venv / "bin" / "duelbench"
    version = _run([command, "--version"], cwd=tmp_path, env=env, timeout=120).stdout.strip()
    assert version == f"duelbench {duelbench.__version__}"
    listed = json.loads(_run([command, "list", "--json"], cwd=tmp_path, env=env, timeout=300).stdout)
    from duelbench.data.registry import dataset_info

    assert [a["name"] for a in listed["algorithms"]] == duelbench.list_algorithms()
    assert {d["name"]: (d["K"], d["needs_mslr"]) for d in listed["datasets"]} == {
        name: (dataset_info(name).K, dataset_info(name).needs_mslr) for name in duelbench.list_datasets()}
    run = _run([command, "run", "rucb", "cyclic", "-T", "200", "-R", "2"], cwd=tmp_path, env=env, timeout=300)
    assert run.stdout.splitlines()[0].startswith("# rucb on cyclic")
    assert not list(tmp_path.iterdir()), "listing and simulating write nothing into the working folder"


# --------------------------------------------------------------------------- the checkout
def test_the_library_imports_nothing_of_the_workflow():
    """In this checkout too: import, listing, simulation and a policy with snakemake (and the
    rest of the workflow extra) unimportable."""
    code = ("import sys\n"
            f"for m in {cli.WORKFLOW_MODULES!r}: sys.modules[m] = None\n"
            "import duelbench\n"
            "from duelbench import cli\n"
            "assert cli.main(['list']) == 0\n"
            "duelbench.simulate('random', 'cyclic', 100, 1)\n"
            "p = duelbench.policy('random', K=3, seed=0); i, j = p.select(); p.update(i, j, True)\n"
            "print('ok')\n")
    proc = _run([sys.executable, "-c", code], cwd=ROOT, env=_plain_env(PYTHONPATH=str(ROOT / "src")), timeout=300)
    assert proc.stdout.splitlines()[-1] == "ok"


def test_a_command_of_the_workflow_names_the_extra_when_a_dependency_is_missing():
    code = ("import sys\n"
            "sys.modules[sys.argv[1]] = None\n"
            "from duelbench.cli import main\n"
            "sys.exit(main(sys.argv[2:]))\n")
    for module, argv in (("snakemake", ["bench-all", "random"]), ("pandas", ["cost", "--help"])):
        proc = subprocess.run([sys.executable, "-c", code, module, *argv], capture_output=True, text=True, cwd=ROOT,
                              env=_plain_env(PYTHONPATH=str(ROOT / "src")), timeout=300)
        assert proc.returncode == 2, (proc.stdout, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and module in lines[0] and 'pip install "duelbench[workflow]"' in lines[0], lines


def test_the_workflow_modules_of_the_command_are_the_workflow_extra():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extra = {r.split(">")[0].split("=")[0].split("[")[0].strip().lower().replace("-", "_")
             for r in meta["optional-dependencies"]["workflow"]}
    assert set(cli.WORKFLOW_MODULES) == extra
    assert not {d.split(">")[0].strip().lower().replace("-", "_") for d in meta["dependencies"]} & extra
