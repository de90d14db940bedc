"""The engine's jobs: shard specifications, their planning, and the entry points of workflow jobs.

* :class:`ShardSpec` is one cached simulation job (dataset, algorithm and its canonical
  parameters, horizon, runs ``[a, b)``, seed, fidelity); :func:`plan_shards` splits a run range
  into shards; :class:`ShardPlan` collects the shards every experiment requests, so the generic
  ``simulate_shard`` rule can map a shard path back to its parameters and seed.
* :func:`run_shard_job`, :func:`warmup_job` and :func:`fetch_mslr_job` are what the workflow's
  rules call.

Nothing here depends on the order in which jobs run or on the number of cores: a shard's content
is a function of its :class:`ShardSpec` only.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from duelbench.algorithms import registry
from duelbench.config import DEFAULT_RESULTS_ROOT, ConfigError
from duelbench.data import mslr
from duelbench.provenance.interrupt import deferred_interrupts
from duelbench.provenance.joblog import log_to
from duelbench.provenance.sidecar import Timer, atomic_write_text, sidecar_path, write_sidecar

from . import warmup
from .shards import run_shard, shard_path

#: Folder (under the results root) of the warm-up flags.
WARMUP_DIR = ".numba_warmup"

#: Hex digits of the code hash in warm-up flag names.
WARMUP_HASH_LEN = 16


def warmup_flag(root: str, algorithm: str, code_hash: str) -> str:
    """Flag written once ``algorithm`` at code version ``code_hash`` is in the numba cache.

    The code hash is part of the name, so editing the algorithm (or the engine) asks for a new
    flag: the warm-up reruns and exactly the shards that depend on that code follow.
    """
    return f"{root}/{WARMUP_DIR}/{algorithm}-{code_hash[:WARMUP_HASH_LEN]}.done"


@dataclass(frozen=True)
class ShardSpec:
    """One cached simulation job; its :attr:`path` names everything its content depends on
    except the seed, which :class:`ShardPlan` keeps unique per path."""

    fidelity: str
    dataset: str
    algorithm: str
    params: dict = field(hash=False, compare=False)
    param_hash: str = ""
    horizon: int = 0
    run_start: int = 0
    run_stop: int = 0
    seed: int = 0
    path: str = ""

    def job_params(self) -> str:
        """Canonical JSON of what the shard job needs (a Snakemake ``params`` value)."""
        return json.dumps(
            {
                "fidelity": self.fidelity, "dataset": self.dataset, "algorithm": self.algorithm,
                "params": self.params, "param_hash": self.param_hash, "horizon": self.horizon,
                "run_start": self.run_start, "run_stop": self.run_stop, "seed": self.seed,
            },
            sort_keys=True, separators=(",", ":"),
        )


def plan_shards(
    *,
    fidelity: str,
    dataset: str,
    algorithm: str,
    params: Mapping[str, Any],
    horizon: int,
    runs: int,
    runs_per_shard: int,
    seed: int,
    root: str = DEFAULT_RESULTS_ROOT,
    first_run: int = 0,
) -> list[ShardSpec]:
    """Split runs ``first_run … first_run + runs − 1`` into shards of ``runs_per_shard`` runs.

    The last shard is shorter when ``runs`` is not a multiple of ``runs_per_shard``. Paths come
    from :func:`duelbench.engine.shards.shard_path`.
    """
    if runs < 1 or runs_per_shard < 1 or horizon < 1:
        raise ConfigError(f"runs, runs_per_shard and horizon must be ≥ 1 (got {runs}, {runs_per_shard}, {horizon})")
    canon = registry.canonical_params(algorithm, dict(params))
    phash = registry.param_hash(algorithm, canon)
    out = []
    for a in range(first_run, first_run + runs, runs_per_shard):
        b = min(a + runs_per_shard, first_run + runs)
        path = shard_path(fidelity, dataset, algorithm, canon, int(horizon), a, b, root=root)
        out.append(ShardSpec(fidelity=fidelity, dataset=dataset, algorithm=algorithm, params=canon,
                             param_hash=phash, horizon=int(horizon), run_start=a, run_stop=b,
                             seed=int(seed), path=os.path.normpath(path)))
    return out


class ShardPlan:
    """All shards requested by the configured experiments, keyed by path.

    Two experiments may request the same shard (that is how runs are shared); they must then
    agree on its seed, otherwise :meth:`add` raises :class:`ConfigError`.
    """

    def __init__(self) -> None:
        self._by_path: dict[str, ShardSpec] = {}
        self._owners: dict[str, list[str]] = {}

    def add(self, specs: Iterable[ShardSpec], owner: str = "") -> list[str]:
        """Register ``specs`` (requested by experiment ``owner``); returns their paths."""
        paths = []
        for spec in specs:
            old = self._by_path.get(spec.path)
            if old is not None and old.seed != spec.seed:
                raise ConfigError(
                    f"shard {spec.path} is requested with seed {spec.seed} by {owner or '?'} and with seed "
                    f"{old.seed} by {', '.join(self._owners[spec.path])}; give these experiments the same seed"
                )
            self._by_path.setdefault(spec.path, spec)
            self._owners.setdefault(spec.path, [])
            if owner and owner not in self._owners[spec.path]:
                self._owners[spec.path].append(owner)
            paths.append(spec.path)
        return paths

    def get(self, path: str) -> ShardSpec:
        """The spec of a shard path (clear error for a shard no experiment requested)."""
        key = os.path.normpath(path)
        try:
            return self._by_path[key]
        except KeyError:
            raise ConfigError(
                f"no configured experiment requests the shard {path}; shards are built only as inputs of "
                "experiments (its algorithm parameters and seed come from their configuration)"
            ) from None

    def __contains__(self, path: str) -> bool:
        return os.path.normpath(path) in self._by_path

    def __len__(self) -> int:
        return len(self._by_path)

    def paths(self) -> list[str]:
        return sorted(self._by_path)

    def specs(self) -> list[ShardSpec]:
        """Every requested shard, in path order."""
        return [self._by_path[p] for p in sorted(self._by_path)]

    def algorithms(self) -> list[str]:
        return sorted({s.algorithm for s in self._by_path.values()})

    def owners(self, path: str) -> list[str]:
        return list(self._owners.get(os.path.normpath(path), []))


def group_shards(specs: Iterable[ShardSpec]) -> dict[tuple, list[ShardSpec]]:
    """Group shards by (dataset, algorithm, param_hash, horizon), each group in run order."""
    groups: dict[tuple, list[ShardSpec]] = {}
    for s in specs:
        groups.setdefault((s.dataset, s.algorithm, s.param_hash, s.horizon), []).append(s)
    return {k: sorted(v, key=lambda s: s.run_start) for k, v in sorted(groups.items())}


def shard_path_of(root: str, wildcards: Mapping[str, str] | Any) -> str:
    """The shard path named by the wildcards of the ``simulate_shard`` rule."""
    w = wildcards
    return os.path.normpath(
        f"{root}/{w.fidelity}/{w.dataset}/{w.algorithm}-{w.paramhash}/T{w.horizon}/runs-{w.a}-{w.b}.npz"
    )


def run_shard_job(out_path: str, job_params: str, log: str | None = None) -> None:
    """Run one shard (``job_params`` = :meth:`ShardSpec.job_params`) and write it with its sidecar.

    Progress lines of the engine go to ``log``. Ctrl-C (SIGINT) ends the job between two runs
    with :class:`KeyboardInterrupt`, before the shard is written.
    """
    with log_to(log), deferred_interrupts():
        print(f"shard {out_path}: {job_params}", flush=True)
        _run_job(out_path, json.loads(job_params))


def _run_job(out_path: str, p: Mapping[str, Any]) -> None:
    """:func:`~duelbench.engine.shards.run_shard` of the decoded :meth:`ShardSpec.job_params`."""
    run_shard(
        out_path,
        dataset=p["dataset"], algorithm=p["algorithm"], params=p["params"], horizon=int(p["horizon"]),
        run_start=int(p["run_start"]), run_stop=int(p["run_stop"]), seed=int(p["seed"]),
        fidelity=p["fidelity"],
    )


#: Environment variable naming a file of shard paths, one per line: the shards whose own job
#: the running build runs (the workflow writes it once its DAG is final, see docs/workflow.md).
BUILD_SHARDS_ENV = "DUELBENCH_BUILD_SHARDS"


def build_shards() -> set[str] | None:
    """The shard paths the running build writes (:data:`BUILD_SHARDS_ENV`), or None when no
    build names them (the variable is unset or its file is gone): then every shard is wanted."""
    path = os.environ.get(BUILD_SHARDS_ENV)
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return {os.path.normpath(line.strip()) for line in f if line.strip()}
    except FileNotFoundError:
        return None


def run_bundle_job(out_dir: str, bundle_params: str, log: str | None = None) -> None:
    """Run the shards of a bundle in this one process and leave each in ``out_dir``.

    ``bundle_params`` is a JSON list of ``{"out": shard path, "staged": file name, "job":
    ShardSpec.job_params()}`` (:meth:`duelbench.experiments.bundling.Bundle.job_params`). Each
    shard is written at its own path with its sidecar, exactly as :func:`run_shard_job` writes
    it, then both are moved into ``out_dir`` under its staged name; the shard's own job links
    them back into place (so only the shards a build asks for reach their paths, each written by
    its own Snakemake job).
    ``out_dir`` is complete only when the job ends.

    Bundles are planned over every configured shard, so a bundle may hold shards the build does
    not write (another experiment's, or ones it reads from the archive): when the build names
    the shards it writes (:func:`build_shards`), only those members are computed. The bundle's
    parameters stay the full member list, so that they do not change from build to build
    (Snakemake would rerun the bundle, and every shard linked from it, on changed parameters).
    """
    members = json.loads(bundle_params)
    wanted = build_shards()
    if wanted is not None:
        members = [m for m in members if os.path.normpath(m["out"]) in wanted]
    os.makedirs(out_dir, exist_ok=True)
    with log_to(log), deferred_interrupts():
        if wanted is not None:
            print(f"bundle: {len(members)} of its shards are written by this build", flush=True)
        for i, member in enumerate(members, 1):
            out = member["out"]
            print(f"bundle member {i}/{len(members)}: shard {out}", flush=True)
            _run_job(out, member["job"])
            staged = os.path.join(out_dir, member["staged"])
            os.replace(sidecar_path(out), sidecar_path(staged))
            os.replace(out, staged)


def warmup_job(flag_path: str, algorithm: str | None = None, log: str | None = None,
               expect_hash: str | None = None) -> None:
    """Compile numba code into the cache (``NUMBA_CACHE_DIR``), then write ``flag_path`` + sidecar.

    Compiles ``algorithm`` only, or every registered algorithm when it is ``None``. With
    ``expect_hash`` (the hash in the flag name), fails if the code changed since the workflow
    was planned, instead of writing a flag for code that was not compiled.
    """
    names = [algorithm] if algorithm is not None else None
    with log_to(log), Timer() as t:
        seconds = warmup.compile_all(names)
    extra = {"algorithms": sorted(seconds or {})}
    if algorithm is not None:
        extra["source_hash"] = registry.source_hash(algorithm)
        if expect_hash is not None and not extra["source_hash"].startswith(expect_hash):
            raise RuntimeError(
                f"the source of {algorithm!r} changed while the workflow ran (code hash "
                f"{extra['source_hash'][:len(expect_hash)]}, planned {expect_hash}); start the build again"
            )
    atomic_write_text(flag_path, (extra.get("source_hash") or "all") + "\n")
    write_sidecar(flag_path, extra=extra, run_info={"compile_seconds": dict(seconds or {}),
                                                    "numba_cache_dir": os.environ.get("NUMBA_CACHE_DIR")},
                  **t.as_kwargs())


def shard_job_main(argv, *, prog: str, command: str, help: str, run) -> int:
    """Command line of an experiment's own shard jobs: ``<command> OUT JOB_JSON [--log FILE]``.

    ``run(out, job_json, log=...)`` computes one shard (the rule builds ``JOB_JSON``).
    """
    parser = argparse.ArgumentParser(prog=prog, description=f"Jobs of {prog.split()[-1]}.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser(command, help=help)
    p.add_argument("out")
    p.add_argument("job", help="canonical JSON of the shard")
    p.add_argument("--log")
    args = parser.parse_args(argv)
    run(args.out, args.job, log=args.log)
    return 0


def fetch_mslr_job(file_name: str, out_path: str, log: str | None = None) -> None:
    """Install the MSLR file ``file_name`` (upstream name, e.g. ``MSLR_Informational_PMat.npz``)
    at ``out_path`` with :func:`duelbench.data.mslr.fetch`.

    The file is copied from ``$DUELBENCH_DATA_MIRROR`` if set, else downloaded, and its SHA-256
    checked; without either, the module's error says how to provide the file.
    """
    os.makedirs(os.path.dirname(out_path) or ".", exist_ok=True)
    with log_to(log):
        got = mslr.fetch(file_name, out_path)
        print(f"installed {got}")
    if not os.path.isfile(out_path):
        raise FileNotFoundError(f"duelbench.data.mslr.fetch({file_name!r}) did not produce {out_path} (got {got})")
