"""The committed tables do not depend on the processor's vector units.

numpy chooses its SIMD kernels (AVX2, AVX-512), OpenBLAS its kernels and glibc its FMA or
non-FMA variants of log, exp and pow for the processor at run time, and their last bits differ.  A few steps are rebuilt here from the committed results
archive with numpy's dispatch lowered to the baseline and OpenBLAS forced to an old core type,
and glibc's FMA variants switched off, as on a processor without AVX2, FMA or AVX-512, and every table and figure they write must equal
the committed bytes.  The steps are chosen to be fast and to cover the statistics that once took processor
dependent paths: means and standard errors over runs, covariances (Komiyama et al.'s Table 1),
fixed-effect and censored fits on the instances' ground truths and their figure on logarithmic
axes (Chen et al.'s hardness study), least-squares slopes and the predictions built on them
(Chen et al.'s parallel study).  Archived samples whose computation once went through BLAS or
LAPACK (Agarwal et al.'s batch logs, Chen et al.'s Frank-Wolfe, projection and payoff products)
are recomputed the same way and must equal the archived bytes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from duelbench.archive.store import VALID, Archive
from duelbench.experiments import samples
from duelbench.experiments.contract import SampleShard

CHECKOUT = Path(__file__).resolve().parent.parent
#: numpy 2.4 names: no X86-64-v3/v4 (AVX2, FMA, AVX-512) kernels; OpenBLAS's Prescott kernels;
#: glibc's libm without its AVX2/FMA variants of log, exp and pow (as on a processor without FMA).
LOWERED = {"NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL", "OPENBLAS_CORETYPE": "Prescott",
           "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA"}
#: (experiment, reading variant or "", step): each reads the committed archive and inputs.
STEPS = [
    ("komiyama2016", "", "table1"),
    ("chen2020", "", "hardness"),
    ("chen2020", "", "parallel"),
]

_REBUILD = """
import json, os, sys
from duelbench.config.files import checkout_config
from duelbench.experiments import planning

out_root, steps = sys.argv[1], json.loads(sys.argv[2])
config = checkout_config(fidelity="paper")
written = []
for experiment, reading, name in steps:
    plan, variants = planning.plans(config, experiment)
    step = (variants[reading] if reading else plan).step(name)
    outputs = {key: os.path.join(out_root, path) for key, path in step.outputs.items()}
    planning.run_step(experiment, name, config, dict(step.inputs), outputs, reading=reading or None)
    written += list(step.outputs.values())
print("OUTPUTS", json.dumps(written))
"""


def _rebuild(out: Path, data: Path, extra_env: dict) -> list[str]:
    """Run :data:`STEPS` in a fresh interpreter (the lowered dispatch takes effect at numpy's
    import); returns the outputs' paths relative to the checkout."""
    path = os.pathsep.join([str(CHECKOUT / "src"), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, **extra_env, "PYTHONPATH": path,
           "DUELBENCH_ARCHIVE": str(CHECKOUT / "archive"), "DUELBENCH_DATA_DIR": str(data), "MPLBACKEND": "Agg",
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", _REBUILD, str(out), json.dumps(STEPS)], cwd=CHECKOUT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.split("OUTPUTS ", 1)[1])


def test_tables_rebuilt_with_lowered_simd_and_blas_equal_the_committed_bytes(tmp_path, mslr_data_dir):
    outputs = _rebuild(tmp_path, mslr_data_dir, LOWERED)
    compared = [p for p in outputs if not p.endswith(".json")]  # the sidecars record the host and time
    assert len(compared) >= 6
    differ = [p for p in compared if (tmp_path / p).read_bytes() != (CHECKOUT / p).read_bytes()]
    assert not differ, f"rebuilt with {LOWERED}, these differ from the committed bytes: {differ}"


#: Archived sample families whose values once went through BLAS or LAPACK (``np.dot``, ``@``,
#: ``scipy.optimize.nnls``), with how many samples of the smallest valid entry of each are recomputed
#: with the lowered kernels; they must equal the archived bytes (a sample recomputed on another
#: machine once differed in its last bit; with ``np.dot`` put back, the first 40 batch logs of
#: the entry chosen here differ, the first 3 do not).
SAMPLE_FAMILIES = {"agarwal2022/batchlog__six_rankers/": 40, "chen2020/lemma9__": 3, "chen2020/car_cond__": 3,
                   "chen2020/hardness__": 3, "chen2020/oracles__": 3}

_RECOMPUTE = """
import json, sys, warnings
import numpy as np
from duelbench.experiments import samples
from duelbench.experiments.contract import SampleShard
warnings.simplefilter("ignore")
out = {}
for s, count in json.loads(sys.argv[1]):
    fields = {**s, "b": min(s["b"], s["a"] + count), "datasets": tuple(s["datasets"]), "columns": tuple(s["columns"])}
    out[s["path"]] = {c: np.asarray(v).tobytes().hex() for c, v in samples.compute(SampleShard(**fields)).items()}
print("ARRAYS", json.dumps(out))
"""


def _sample_shard(entry: dict) -> SampleShard:
    return SampleShard(**{**entry, "datasets": tuple(entry["datasets"]), "columns": tuple(entry["columns"])})


def _smallest_valid_sample_entries() -> dict[str, dict]:
    """Family prefix -> the valid archived entry with the fewest samples (as JSON-ready fields of
    its :class:`SampleShard`)."""
    archive = Archive(CHECKOUT / "archive")
    sources = samples.SampleSources(archive.root)
    rows = [r for r in archive.manifest().values() if r["key"]["kind"] == samples.KIND]
    chosen = {}
    for row in sorted(rows, key=lambda r: (r["key"]["samples"][1] - r["key"]["samples"][0], r["path"])):
        k = row["key"]
        family = next((f for f in SAMPLE_FAMILIES if row["path"].startswith(f"samples/{f}")), None)
        if family is None or family in chosen:
            continue
        entry = {"experiment": k["experiment"], "family": k["family"], "function": k["function"], "job": k["job"],
                 "a": k["samples"][0], "b": k["samples"][1], "path": row["path"], "datasets": sorted(k["datasets"]),
                 "columns": list(k.get("columns", ()))}
        if sources.status(_sample_shard(entry)) == VALID:
            chosen[family] = entry
    return chosen


def test_archived_samples_recomputed_with_lowered_simd_and_blas_are_bit_identical(mslr_data_dir):
    chosen = _smallest_valid_sample_entries()
    assert set(chosen) == set(SAMPLE_FAMILIES), (
        f"no valid archived entry of {sorted(set(SAMPLE_FAMILIES) - set(chosen))}: refill them before this commit")
    path = os.pathsep.join([str(CHECKOUT / "src"), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, **LOWERED, "PYTHONPATH": path, "DUELBENCH_DATA_DIR": str(mslr_data_dir),
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    jobs = [(entry, SAMPLE_FAMILIES[family]) for family, entry in chosen.items()]
    done = subprocess.run([sys.executable, "-c", _RECOMPUTE, json.dumps(jobs)], cwd=CHECKOUT, env=env,
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    again = json.loads(done.stdout.split("ARRAYS ", 1)[1])
    sources = samples.SampleSources(CHECKOUT / "archive")
    differ = []
    for entry, count in jobs:
        for column, values in sources.arrays(_sample_shard(entry)).items():
            if np.asarray(values[:count]).tobytes().hex() != again[entry["path"]][column]:
                differ.append(f"{entry['path']} samples {entry['a']}-{entry['a'] + count - 1} ({column})")
    assert not differ, f"recomputed with {LOWERED}, these differ from the archive: {differ}"
