"""Experiments: from configuration to result shards, aggregates and figures.

One module per paper (plus :mod:`.demo`) turns its section of the workflow configuration into
a list of result shards and draws its tables and figures from them. This package holds what
they share:

* **fidelities** — ``config["fidelity"]`` names an entry of ``config["fidelities"]``; its
  ``overrides`` are deep-merged into the configuration (:func:`effective_config`) and its
  ``figures`` entry says where tables and figures go (:func:`figures_dir`). The fidelity is
  part of every shard path, so quick and paper-fidelity results never collide.
* **shards** — :class:`ShardSpec` is one cached simulation job (dataset, algorithm and its
  canonical parameters, horizon, runs ``[a, b)``, seed, fidelity); :func:`plan_shards` splits
  a run range into shards; :class:`ShardPlan` collects the shards every experiment requests,
  so the generic ``simulate_shard`` rule can map a shard path back to its parameters and seed.
* **checks** — :func:`check_config` rejects unknown algorithms, bad algorithm parameters and
  unknown fidelities with a message naming the offending configuration key.
* **jobs** — :func:`run_shard_job` and :func:`warmup_job` are what the workflow rules call.

Nothing here depends on the order in which jobs run or on the number of cores: a shard's
content is a function of its :class:`ShardSpec` only.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

DEFAULT_RESULTS_ROOT = "results"
DEFAULT_FIGURES_ROOT = "figures"
WARMUP_DIR = ".numba_warmup"


class ConfigError(ValueError):
    """A configuration error; the message names the offending key."""


# --------------------------------------------------------------------------------------------
# configuration and fidelities
# --------------------------------------------------------------------------------------------
def deep_merge(base: Mapping, override: Mapping) -> dict:
    """A new dict: ``base`` with ``override`` merged in (mappings recursively, the rest replaced)."""
    out = copy.deepcopy(dict(base))
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def active_fidelity(config: Mapping, fidelity: str | None = None) -> str:
    """The fidelity name: ``fidelity`` if given, else ``config["fidelity"]`` (default "paper")."""
    name = fidelity if fidelity is not None else config.get("fidelity", "paper")
    known = config.get("fidelities", {})
    if known and name not in known:
        raise ConfigError(f"fidelity {name!r} is not defined under 'fidelities' (defined: {', '.join(sorted(known))})")
    return name


def fidelity_settings(config: Mapping, fidelity: str | None = None) -> dict:
    """The block ``config["fidelities"][fidelity]`` (empty if the fidelity defines nothing)."""
    name = active_fidelity(config, fidelity)
    return dict(config.get("fidelities", {}).get(name) or {})


def effective_config(config: Mapping, fidelity: str | None = None) -> dict:
    """``config`` with the fidelity's ``overrides`` deep-merged in and ``fidelity`` set.

    Idempotent: applying it to its own result changes nothing.
    """
    name = active_fidelity(config, fidelity)
    out = deep_merge(config, fidelity_settings(config, name).get("overrides") or {})
    out["fidelity"] = name
    return out


def experiment_settings(config: Mapping, experiment: str, fidelity: str | None = None) -> dict:
    """The effective settings of one experiment (its config section after fidelity overrides)."""
    eff = effective_config(config, fidelity)
    if experiment not in eff:
        raise ConfigError(f"the configuration has no section {experiment!r}")
    return eff[experiment]


def results_root(config: Mapping) -> str:
    """Root folder of the shard cache (``config["results"]``, default ``results``)."""
    return str(config.get("results", DEFAULT_RESULTS_ROOT)).rstrip("/")


def figures_root(config: Mapping, fidelity: str | None = None) -> str:
    """Where tables and figures of the active fidelity go (its ``figures`` entry)."""
    return str(fidelity_settings(config, fidelity).get("figures", DEFAULT_FIGURES_ROOT)).rstrip("/")


def figures_dir(config: Mapping, experiment: str, fidelity: str | None = None) -> str:
    """``<figures root of the fidelity>/<experiment>``."""
    return f"{figures_root(config, fidelity)}/{experiment}"


def paper_settings(config: Mapping, experiment: str, fidelity: str | None = None) -> dict:
    """A deep copy of the experiment's effective section (:func:`experiment_settings`) plus
    ``fidelity`` (the active one), ``figures`` (:func:`figures_dir`) and ``results``
    (:func:`results_root`): what a paper's ``settings`` starts from before its own defaults and
    checks."""
    fid = active_fidelity(config, fidelity)
    s = copy.deepcopy(dict(experiment_settings(config, experiment, fid)))
    s["fidelity"] = fid
    s["figures"] = figures_dir(config, experiment, fid)
    s["results"] = results_root(config)
    return s


def output_paths(config: Mapping, experiment: str, files: Mapping[str, str], fidelity: str | None = None
                 ) -> dict[str, str]:
    """A paper's final outputs by key: each file name of ``files`` (key -> name) under
    :func:`figures_dir`; sidecars are ``<path>.json``."""
    d = figures_dir(config, experiment, fidelity)
    return {k: f"{d}/{v}" for k, v in files.items()}


def data_file(experiment: str, folder: str = "published"):
    """``data/<folder>/<experiment>.yaml`` of the checkout: with the default folder, the paper's
    published-number registry (:mod:`duelbench.report.checks`)."""
    from duelbench.data.paths import project_root

    return project_root() / "data" / folder / f"{experiment}.yaml"


#: Hex digits of the code hash in warm-up flag names.
WARMUP_HASH_LEN = 16


def warmup_flag(root: str, algorithm: str, code_hash: str) -> str:
    """Flag written once ``algorithm`` at code version ``code_hash`` is in the numba cache.

    The code hash is part of the name, so editing the algorithm (or the engine) asks for a new
    flag: the warm-up reruns and exactly the shards that depend on that code follow.
    """
    return f"{root}/{WARMUP_DIR}/{algorithm}-{code_hash[:WARMUP_HASH_LEN]}.done"


# --------------------------------------------------------------------------------------------
# algorithms and datasets named in the configuration
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AlgorithmEntry:
    """One configured algorithm: registry name, canonical parameters, their hash, a label."""

    name: str
    params: dict = field(hash=False, compare=False)
    param_hash: str = ""
    label: str = ""


def algorithm_entries(entries: Iterable[Any], where: str = "algorithms") -> list[AlgorithmEntry]:
    """Normalise a configured algorithm list.

    Each entry is a registry name (``"rucb"``) or a mapping ``{name, params, label}``. Parameters
    are merged with the algorithm's defaults and validated by the registry. Raises
    :class:`ConfigError` naming ``where[i]`` for an unknown algorithm or a bad parameter.
    """
    from duelbench.algorithms import registry

    known = registry.list_algorithms()
    out = []
    seen = set()
    for i, entry in enumerate(entries):
        key = f"{where}[{i}]"
        if isinstance(entry, str):
            entry = {"name": entry}
        name = entry.get("name")
        if name not in known:
            raise ConfigError(f"{key}: unknown algorithm {name!r}; registered algorithms: {', '.join(known)}")
        try:
            params = registry.canonical_params(name, entry.get("params") or {})
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"{key}: invalid parameters for {name!r}: {exc}") from None
        phash = registry.param_hash(name, params)
        if (name, phash) in seen:
            raise ConfigError(f"{key}: {name!r} with these parameters is listed twice")
        seen.add((name, phash))
        out.append(AlgorithmEntry(name=name, params=params, param_hash=phash, label=str(entry.get("label") or "")))
    return out


def check_datasets(names: Iterable[str], where: str = "datasets") -> None:
    """Raise :class:`ConfigError` for a dataset name the dataset registry does not know."""
    from duelbench.data import registry as data_registry

    for i, name in enumerate(names):
        try:
            data_registry.dataset_info(name)
        except LookupError as exc:
            raise ConfigError(f"{where}[{i}]: {exc}") from None


def dataset_inputs(dataset: str, data_root: str = "data") -> list[str]:
    """Files that must exist before ``dataset`` can be loaded: its downloaded MSLR matrix, if any.

    ``<data_root>/mslr/<upstream file name>`` (what the ``fetch_mslr`` rule makes), from
    :func:`duelbench.data.registry.required_files`; empty for matrices kept in the checkout.
    """
    from duelbench.data import registry as data_registry

    return [os.fspath(p) for p in data_registry.required_files(dataset, data_root=data_root)]


TOP_LEVEL_KEYS = ("fidelity", "results", "data", "archive", "fidelities")


def _key_path(path: Iterable) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _load_schema(schema_path: str) -> dict:
    import yaml

    with open(schema_path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def _suggest(word: str, choices: Iterable[str]) -> str:
    import difflib

    close = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def schema_errors(config: Mapping, schema_path: str, prefix: tuple = ()) -> list[str]:
    """Every violation of the JSON schema at ``schema_path``, one readable line each.

    Lines look like ``demo.runs: -3 is less than the minimum of 1`` or ``demo.typo: unknown key
    (allowed: ...; did you mean ...?)``; ``prefix`` is the key path of ``config`` inside the
    whole configuration (for a section checked with its own schema).
    """
    import jsonschema

    validator = jsonschema.Draft202012Validator(_load_schema(schema_path))
    lines = []
    for err in sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path]):
        path = [*prefix, *err.absolute_path]
        if err.validator == "oneOf" and err.context:
            # prefer the branch that got furthest (e.g. the mapping form of an algorithm entry)
            deep = [e for e in err.context if e.relative_path or e.validator != "type"]
            err = jsonschema.exceptions.best_match(deep or err.context)
            path += list(err.relative_path)
        lines += _error_lines(err, path, validator)
    return lines


def _declared_keys(schema: Mapping, validator) -> set[str]:
    """Keys a (sub)schema declares under ``properties``, also through local ``$ref`` (``#/...``)
    and ``allOf``."""
    keys = set(schema.get("properties", {}))
    ref = schema.get("$ref", "")
    if ref.startswith("#/"):
        target = validator.schema
        for part in ref[2:].split("/"):
            target = target[part]
        keys |= _declared_keys(target, validator)
    for sub in schema.get("allOf", []):
        keys |= _declared_keys(sub, validator)
    return keys


def _error_lines(err, path: list, validator) -> list[str]:
    """One line per problem of a jsonschema error at key ``path``; unknown keys are named with
    the allowed ones and the closest match."""
    if err.validator in ("additionalProperties", "unevaluatedProperties") and isinstance(err.instance, Mapping) \
            and err.validator_value is False:
        allowed = sorted(_declared_keys(err.schema, validator))
        return [f"{_key_path(path + [key])}: unknown key (allowed: {', '.join(allowed)}){_suggest(key, allowed)}"
                for key in sorted(set(err.instance) - set(allowed), key=str)]
    return [f"{_key_path(path)}: {err.message}"]


def section_schemas(schema_path: str) -> dict[str, str]:
    """Experiment sections with a schema of their own: ``<name>.schema.yaml`` beside ``schema_path``."""
    folder = os.path.dirname(os.path.abspath(schema_path))
    main = os.path.basename(schema_path)
    return {f[: -len(".schema.yaml")]: os.path.join(folder, f) for f in sorted(os.listdir(folder))
            if f.endswith(".schema.yaml") and f != main}


def _config_errors(config: Mapping, schema_path: str, sections: Mapping[str, str]) -> list[str]:
    """Unknown top-level sections, then the main schema, then each section's own schema."""
    known = [*TOP_LEVEL_KEYS, *_load_schema(schema_path).get("properties", {}), *sections]
    known = list(dict.fromkeys(known))
    errors = [f"{key}: unknown top-level section (known: {', '.join(known)}; a new experiment's section "
              f"needs its schema workflow/schemas/{key}.schema.yaml){_suggest(key, known)}"
              for key in config if key not in known]
    errors += schema_errors({k: v for k, v in config.items() if k in known}, schema_path)
    for name, path in sections.items():
        if isinstance(config.get(name), Mapping):
            errors += schema_errors(config[name], path, prefix=(name,))
    return errors


def validate_config(config: Mapping, schema_path: str, sections: Mapping[str, str] | None = None) -> dict:
    """Check ``config`` and its effective form (after the fidelity's overrides), then
    :func:`check_config`.

    ``sections`` maps each experiment section to its own schema (default:
    :func:`section_schemas`); a top-level key that is neither a key of the main schema nor such
    a section is rejected.  Returns the effective configuration; raises :class:`ConfigError`
    with one short line per problem, each naming the key, what was expected and the fix.
    """
    sections = section_schemas(schema_path) if sections is None else sections
    errors = _config_errors(config, schema_path, sections)
    if errors:
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(errors))
    eff = check_config(config)
    errors = _config_errors(eff, schema_path, sections)
    if errors:
        name = eff.get("fidelity")
        raise ConfigError(
            f"invalid configuration after applying fidelities.{name}.overrides:\n  " + "\n  ".join(errors)
        )
    return eff


def check_config(config: Mapping) -> dict:
    """Semantic checks beyond the JSON schema; returns the effective configuration.

    * the fidelity is defined;
    * in every experiment section (a mapping with ``algorithms``/``datasets`` lists), every
      algorithm is registered with valid parameters and every dataset is known.

    Raises :class:`ConfigError` with the offending key in the message.
    """
    if "fidelities" in config and config.get("fidelity", "paper") not in config["fidelities"]:
        raise ConfigError(
            f"fidelity: {config.get('fidelity')!r} is not defined under 'fidelities' "
            f"(defined: {', '.join(sorted(config['fidelities']))})"
        )
    eff = effective_config(config)
    for section, value in eff.items():
        if not isinstance(value, Mapping) or section == "fidelities":
            continue
        if isinstance(value.get("algorithms"), list):
            algorithm_entries(value["algorithms"], where=f"{section}.algorithms")
        if isinstance(value.get("datasets"), list):
            check_datasets(value["datasets"], where=f"{section}.datasets")
    return eff


# --------------------------------------------------------------------------------------------
# shards
# --------------------------------------------------------------------------------------------
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
    from duelbench.algorithms import registry
    from duelbench.engine.shards import shard_path

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


# --------------------------------------------------------------------------------------------
# jobs called by workflow rules
# --------------------------------------------------------------------------------------------
@contextlib.contextmanager
def log_to(path: str | None) -> Iterator[None]:
    """Send stdout and stderr of the block to the file ``path`` (no-op for ``None``).

    Exceptions still propagate (the workflow prints them and points at the log).
    """
    if not path:
        yield
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh, contextlib.redirect_stdout(fh), contextlib.redirect_stderr(fh):
        try:
            yield
        except BaseException as exc:
            print(f"error: {type(exc).__name__}: {exc}", file=fh)
            raise
        finally:
            sys.stdout.flush()


def shard_path_of(root: str, wildcards: Mapping[str, str] | Any) -> str:
    """The shard path named by the wildcards of the ``simulate_shard`` rule."""
    w = wildcards
    return os.path.normpath(
        f"{root}/{w.fidelity}/{w.dataset}/{w.algorithm}-{w.paramhash}/T{w.horizon}/runs-{w.a}-{w.b}.npz"
    )


def run_shard_job(out_path: str, job_params: str, log: str | None = None) -> None:
    """Run one shard (``job_params`` = :meth:`ShardSpec.job_params`) and write it with its sidecar.

    Progress lines of the engine go to ``log``.
    """
    from duelbench.engine.shards import run_shard

    p = json.loads(job_params)
    with log_to(log):
        print(f"shard {out_path}: {job_params}", flush=True)
        run_shard(
            out_path,
            dataset=p["dataset"], algorithm=p["algorithm"], params=p["params"], horizon=int(p["horizon"]),
            run_start=int(p["run_start"]), run_stop=int(p["run_stop"]), seed=int(p["seed"]),
            fidelity=p["fidelity"],
        )


def warmup_job(flag_path: str, algorithm: str | None = None, log: str | None = None,
               expect_hash: str | None = None) -> None:
    """Compile numba code into the cache (``NUMBA_CACHE_DIR``), then write ``flag_path`` + sidecar.

    Compiles ``algorithm`` only, or every registered algorithm when it is ``None``. With
    ``expect_hash`` (the hash in the flag name), fails if the code changed since the workflow
    was planned, instead of writing a flag for code that was not compiled.
    """
    from duelbench.algorithms import registry
    from duelbench.engine import warmup
    from duelbench.provenance.sidecar import Timer, atomic_write_text, write_sidecar

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
    import argparse

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
    from duelbench.data import mslr

    os.makedirs(os.path.dirname(out_path) or ".", exist_ok=True)
    with log_to(log):
        got = mslr.fetch(file_name, out_path)
        print(f"installed {got}")
    if not os.path.isfile(out_path):
        raise FileNotFoundError(f"duelbench.data.mslr.fetch({file_name!r}) did not produce {out_path} (got {got})")
