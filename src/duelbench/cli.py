"""The ``duelbench`` command: one-off use of the library outside the Snakemake workflow.

Subcommands::

    duelbench list [--json]                   registered algorithms (and datasets)
    duelbench run ALGORITHM DATASET ...       simulate one algorithm, print its mean regret
    duelbench bench ...                       -> duelbench.bench.main(argv)
    duelbench fetch-data ...                  -> duelbench.data.mslr.main_fetch(argv)
    duelbench check ...                       -> duelbench.report.checks.main(argv)
    duelbench status ...                      -> duelbench.experiments.reporting.main(argv)
    duelbench config-check ...                -> duelbench.config.files.main(argv)

A subcommand is offered only when the code behind it is part of the installed package: the
CLI looks for the backing function in the module's source without importing it, so
``duelbench --help`` stays fast (no numba, no plotting libraries) and never lists a command
that cannot run. Delegated subcommands (``bench``, ``fetch-data``, ``check``) receive the rest
of the command line unchanged and parse it themselves; the backing function has the signature
``main(argv: list[str] | None) -> int | None``.

The library's dependencies suffice for ``list``, ``run``, ``bench`` and ``fetch-data``; the
commands of the workflow need its extra (``pip install "duelbench[workflow]"``). A command
whose code meets a missing workflow dependency says so in one line (:data:`WORKFLOW_MODULES`).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

import duelbench
from duelbench.progress import Progress
from duelbench.provenance.interrupt import EXIT_INTERRUPTED, check_interrupt, deferred_interrupts
from duelbench.provenance.sidecar import atomic_write

_PACKAGE_DIR = Path(__file__).resolve().parent

ALGORITHM_REGISTRY = ("duelbench.algorithms.registry", "list_algorithms")
DATASET_REGISTRY = ("duelbench.data.registry", "list_datasets")
SIMULATE = ("duelbench.engine.simulate", "simulate")
LOAD_MATRIX = ("duelbench.data.registry", "load_matrix")
#: Plug-in files as the command line meets them (a broken one is skipped, see the module).
PLUGINS = "duelbench.engine.plugins"
#: The folders of plug-in files (``duelbench.algorithms.registry.PLUGIN_PATH_ENV``).
PLUGIN_PATH_ENV = "DUELBENCH_PLUGIN_PATH"
#: Import names of the ``workflow`` extra's packages (pyproject.toml): the library never needs them.
WORKFLOW_MODULES = ("snakemake", "snakemake_executor_plugin_slurm", "pandas", "matplotlib", "seaborn", "jsonschema")
WORKFLOW_INSTALL = 'pip install "duelbench[workflow]"'


# --------------------------------------------------------------------------- discovery
def _module_source(module: str) -> Path | None:
    """Source file of a ``duelbench`` submodule, found without importing it."""
    parts = module.split(".")
    if parts[0] != "duelbench":
        raise ValueError(f"not a duelbench module: {module}")
    base = _PACKAGE_DIR.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def provides(module: str, name: str) -> bool:
    """Whether ``module`` (a duelbench submodule) defines ``name`` at its top level.

    Reads the source instead of importing it; when no source file is found (e.g. a
    bytecode-only install) it falls back to asking the import system whether the module exists.
    """
    source = _module_source(module)
    if source is None:
        try:
            return importlib.util.find_spec(module) is not None
        except ImportError:
            return False
    try:
        tree = ast.parse(source.read_text(encoding="utf-8"), filename=str(source))
    except (OSError, SyntaxError, ValueError):
        return True  # let the real import report what is wrong with it
    return name in _top_level_names(tree)


def _load(module: str, name: str) -> Callable:
    return getattr(importlib.import_module(module), name)


# --------------------------------------------------------------------------- commands
@dataclass(frozen=True)
class Command:
    name: str
    help: str
    requires: tuple[tuple[str, str], ...]
    #: (module, function) receiving the remaining arguments, or None for a built-in command.
    delegate: tuple[str, str] | None = None
    #: built-in commands: adds arguments to the subparser and returns the handler.
    build: Callable[[argparse.ArgumentParser], Callable[[argparse.Namespace], int]] | None = None
    #: packages of :data:`WORKFLOW_MODULES` the command runs without importing them (e.g. the
    #: snakemake executable), checked before it starts.
    needs: tuple[str, ...] = ()

    def available(self) -> bool:
        return all(provides(m, f) for m, f in self.requires)

    def missing(self) -> str | None:
        """The first package of :attr:`needs` that is not installed, or None."""
        for module in self.needs:
            try:
                if importlib.util.find_spec(module) is None:
                    return module
            except (ImportError, ValueError):
                return module
        return None


def _build_list(p: argparse.ArgumentParser):
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return _cmd_list


def _cmd_list(args: argparse.Namespace) -> int:
    out: dict[str, object] = {}
    list_algorithms = _load(*ALGORITHM_REGISTRY)
    get_algorithm = _load(ALGORITHM_REGISTRY[0], "get_algorithm")
    algorithms = []
    for name in list_algorithms():
        spec = get_algorithm(name)
        algorithms.append(
            {
                "name": name,
                "title": getattr(spec, "title", ""),
                "reference": getattr(spec, "reference", ""),
                "defaults": dict(getattr(spec, "defaults", {}) or {}),
            }
        )
    out["algorithms"] = algorithms
    for plugin in _load(PLUGINS, "skipped")():
        if plugin.reason == "defines no ALGORITHM":
            print(f"duelbench list: note: plug-in {plugin.path} defines no ALGORITHM (not listed)", file=sys.stderr)
    if provides(*DATASET_REGISTRY):
        info = _load(DATASET_REGISTRY[0], "dataset_info")
        out["datasets"] = [{"name": str(d), "K": int(info(d).K), "needs_mslr": bool(info(d).needs_mslr)}
                           for d in _load(*DATASET_REGISTRY)()]
    if args.json:
        print(json.dumps(out, indent=2, sort_keys=True))
        return 0
    print(f"algorithms ({len(algorithms)}):")
    for a in algorithms:
        defaults = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in a["defaults"].items())
        line = f"  {a['name']:<16} {a['title']}"
        if defaults:
            line += f"  [{defaults}]"
        print(line.rstrip())
    if "datasets" in out:
        print(f"datasets ({len(out['datasets'])}):")
        for d in out["datasets"]:
            mslr = "  (needs the MSLR data: duelbench fetch-data)" if d["needs_mslr"] else ""
            print(f"  {d['name']:<32} K={d['K']:<4d}{mslr}")
    return 0


def _build_run(p: argparse.ArgumentParser):
    p.add_argument("algorithm", help="registered algorithm name (see `duelbench list`)")
    p.add_argument(
        "dataset",
        help="registered dataset name (a family of per-run instances: run r on its instance r), or a "
             ".npy/.npz/.csv file holding a K×K preference matrix",
    )
    p.add_argument("-T", "--horizon", type=_at_least(1), required=True, action=_Once, help="time steps per run")
    p.add_argument("-R", "--runs", type=_at_least(1), default=10, action=_Once, help="independent runs (default 10)")
    p.add_argument("--seed", type=_at_least(0), default=0, action=_Once,
                   help="global seed, an integer ≥ 0 (default 0)")
    p.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="algorithm parameter overriding its default (repeatable, once per NAME)",
    )
    p.add_argument("--kind", default=None, type=_regret_kind, action=_Once,
                   help="regret definition to print: copeland, copeland_zoghi, copeland_wu or condorcet "
                        "(default: copeland)")
    p.add_argument("--points", type=_points, default=12, action=_Once,
                   help="checkpoints to print: a positive integer, or 'all' (default 12)")
    p.add_argument("-o", "--out", type=Path, default=None, action=_Once,
                   help="also save the full result to this file (.npz is appended if missing)")
    return _cmd_run


class _Once(argparse.Action):
    """Store an option's value; an option given twice is an error, not a silent replacement."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given_once", set())
        if self.dest in given:
            raise argparse.ArgumentError(self, "given more than once; give it once")
        given.add(self.dest)
        setattr(namespace, self.dest, values)


def _points(text: str) -> int:
    """``--points``: a positive integer, or ``all`` (every checkpoint, returned as 0)."""
    if text.strip().lower() == "all":
        return 0
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer or 'all', got {text}")
    return value


def _at_least(low: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer ≥ {low}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer ≥ {low}, got {value}")
        return value

    return parse


def _regret_kind(text: str) -> str:
    kinds = _load("duelbench.engine.result", "RECORDED_KINDS")
    if text not in kinds:
        raise argparse.ArgumentTypeError(f"unknown regret kind {text!r}; choose from {', '.join(kinds)}")
    return text


def _parse_params(items: Sequence[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--param expects NAME=VALUE, got {item!r}")
        key = key.strip()
        if key in params:
            raise ValueError(f"--param {key} is given twice ({key}={params[key]}, {key}={value.strip()}); "
                             "give it once")
        params[key] = value.strip()
    return params


MATRIX_SUFFIXES = (".npy", ".npz", ".csv", ".txt")


def _matrix_argument(dataset: str):
    """A dataset name is passed through; a matrix file (by its suffix or a path separator) is read
    into an array, with an error naming the file and the expected format when it cannot be."""
    path = Path(dataset)
    if path.suffix.lower() not in MATRIX_SUFFIXES and "/" not in dataset:
        return dataset
    if not path.is_file():
        raise FileNotFoundError(f"matrix file {dataset} not found (a dataset is a registered name, see "
                                f"`duelbench list`, or a {'/'.join(MATRIX_SUFFIXES)} file)")
    suffix = path.suffix.lower()
    try:
        if suffix == ".npy":
            return np.load(path, allow_pickle=False)
        if suffix == ".npz":
            with np.load(path, allow_pickle=False) as z:
                if len(z.files) != 1:
                    raise ValueError(f"it holds arrays {z.files}; expected exactly one matrix")
                return z[z.files[0]]
        return np.loadtxt(path, delimiter="," if suffix == ".csv" else None, ndmin=2)
    except (OSError, ValueError, EOFError) as exc:
        raise ValueError(f"cannot read a preference matrix from {dataset}: {exc}. Expected a K×K array of "
                         "probabilities p_ij (numpy.save for .npy/.npz; one row per arm, comma-separated, for "
                         ".csv)") from None


#: Above this many arms, ``run`` warns about memory: the engine holds K×K float64 tables (the
#: preference matrix, one regret table per regret kind, and their relabelled copies per run),
#: about ``BYTES_PER_PAIR`` bytes per ordered pair.
LARGE_K = 2000
BYTES_PER_PAIR = 16 * 8


def _cmd_run(args: argparse.Namespace) -> int:
    params = _parse_params(args.param)
    matrix = _matrix_argument(args.dataset)
    out = _output_file(args.out)
    spec = _load(PLUGINS, "get_algorithm")(args.algorithm)
    _load(PLUGINS, "check_policy")(spec)
    _warn_large(_arms(matrix))
    with _load(PLUGINS, "policy_errors")(spec):
        result = _simulate(args, matrix, params)
    _print_regret(args, result)
    if out is not None:
        _save(result, out)
    return 0


def _arms(matrix) -> int:
    """Number of arms of a dataset name or a matrix read from a file."""
    if isinstance(matrix, str):
        return int(_load(DATASET_REGISTRY[0], "dataset_info")(matrix).K)
    return int(np.shape(matrix)[0])


def _warn_large(K: int) -> None:
    if K > LARGE_K:
        print(f"duelbench run: warning: K = {K} arms: the per-pair tables (preferences and regret, relabelled "
              f"per run) take at least {BYTES_PER_PAIR * K * K / 1e9:.1f} GB of memory, whatever the horizon",
              file=sys.stderr)


def _output_file(path: Path | None) -> Path | None:
    """The file ``-o`` names (``.npz`` appended if missing), checked writable before simulating.

    A folder that does not exist yet is created when the result is saved; ValueError (one line
    naming the path and the fix) when the file cannot be created there.
    """
    if path is None:
        return None
    out = path if path.suffix == ".npz" else path.with_name(path.name + ".npz")
    if out.is_dir():
        raise ValueError(f"-o {out}: is a folder; name a file in it, e.g. -o {out / 'result.npz'}")
    folder = out.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise ValueError(f"-o {out}: {folder} is a file, not a folder; choose another path for the result")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"-o {out}: the folder {folder} is not writable; choose a writable folder "
                         f"(or change its permissions)")
    return out


def _simulate(args: argparse.Namespace, matrix, params: dict):
    """The simulation of ``duelbench run``, with a progress line and the time left after each run
    once it takes more than 2 s (:class:`duelbench.progress.Progress`); Ctrl-C ends it between
    runs (KeyboardInterrupt)."""
    shown = Progress(args.runs, label="run")

    def progress(done: int, total: int) -> None:
        check_interrupt()
        shown.update(done)

    simulate = _load(*SIMULATE)
    if isinstance(matrix, str) and _load(DATASET_REGISTRY[0], "is_family")(matrix):
        simulate = _load("duelbench.engine.families", "simulate_family")  # run r on the family's instance r
    with deferred_interrupts():
        return simulate(args.algorithm, matrix, args.horizon, args.runs, seed=args.seed, progress=progress,
                        **params)


def _print_regret(args: argparse.Namespace, result) -> None:
    """The table of mean regret and its standard error at the checkpoints."""
    regret = np.asarray(result.regret if args.kind is None else result.regret_of(args.kind), dtype=float)
    checkpoints = np.asarray(result.checkpoints)
    mean = regret.mean(axis=0)
    se = regret.std(axis=0, ddof=1) / np.sqrt(regret.shape[0]) if regret.shape[0] > 1 else np.zeros_like(mean)
    idx = np.arange(len(checkpoints))
    if 0 < args.points < len(idx):
        idx = np.unique(np.round(np.linspace(0, len(idx) - 1, args.points)).astype(int))
    label = args.kind or "regret"
    print(f"# {args.algorithm} on {args.dataset}: T={args.horizon}, runs={regret.shape[0]}, seed={args.seed}")
    print(f"{'t':>12}  {'mean ' + label:>18}  {'s.e.':>12}")
    for i in idx:
        print(f"{int(checkpoints[i]):>12d}  {mean[i]:>18.4f}  {se[i]:>12.4f}")


def _save(result, out: Path) -> None:
    """Write ``result`` to ``out`` atomically (a temporary file renamed over it), saying whether a
    file was replaced; ValueError naming the file when it cannot be written (nothing left behind)."""
    replaced = out.exists()
    try:
        atomic_write(out, result.to_npz)
    except OSError as exc:
        raise ValueError(f"cannot write {out}: {exc.strerror or exc}; the result was not saved (choose another "
                         "path with -o)") from None
    print(f"saved {out}" + (" (replaced the file that was there)" if replaced else ""))


COMMANDS: tuple[Command, ...] = (
    Command(
        "list",
        "list the registered algorithms (and datasets)",
        requires=(ALGORITHM_REGISTRY,),
        build=_build_list,
    ),
    Command(
        "run",
        "simulate one algorithm on one dataset and print its mean cumulative regret",
        requires=(SIMULATE, LOAD_MATRIX),
        build=_build_run,
    ),
    Command(
        "bench",
        "measure simulation throughput (steps per second)",
        requires=(("duelbench.bench", "main"),),
        delegate=("duelbench.bench", "main"),
    ),
    Command(
        "bench-all",
        "benchmark an algorithm (e.g. a plug-in) on every regret instance of the papers",
        requires=(("duelbench.experiments.bench_all", "main"),),
        delegate=("duelbench.experiments.bench_all", "main"),
        needs=("snakemake",),
    ),
    Command(
        "fetch-data",
        "download the MSLR preference matrices (SHA-256 checked) or copy them from a mirror",
        requires=(("duelbench.data.mslr", "main_fetch"),),
        delegate=("duelbench.data.mslr", "main_fetch"),
    ),
    Command(
        "check",
        "compare reproduced results with the published numbers",
        requires=(("duelbench.report.checks", "main"),),
        delegate=("duelbench.report.checks", "main"),
    ),
    Command(
        "archive",
        "put finished simulation shards into the results archive; check every entry and size it",
        requires=(("duelbench.experiments.archiving", "archive_command"),),
        delegate=("duelbench.experiments.archiving", "archive_command"),
    ),
    Command(
        "config-check",
        "check workflow configuration files (YAML errors with file and line, then the schema)",
        requires=(("duelbench.config.files", "main"),),
        delegate=("duelbench.config.files", "main"),
    ),
    Command(
        "cost",
        "CPU time per panel of an experiment, from the sidecars of the shards this checkout computed",
        requires=(("duelbench.experiments.cost", "main"),),
        delegate=("duelbench.experiments.cost", "main"),
    ),
    Command(
        "status",
        "rewrite figures/replication_status.csv from the checks.csv files on disk",
        requires=(("duelbench.experiments.reporting", "main"),),
        delegate=("duelbench.experiments.reporting", "main"),
    ),
    Command(
        "verdicts",
        "write the verdict changelog against the blessed verdicts, or bless a released version",
        requires=(("duelbench.report.changelog", "main"),),
        delegate=("duelbench.report.changelog", "main"),
    ),
)


def available_commands() -> list[Command]:
    """The subcommands this installation can run."""
    return [c for c in COMMANDS if c.available()]


def _workflow_module(exc: ModuleNotFoundError) -> str | None:
    """The package of :data:`WORKFLOW_MODULES` whose absence ``exc`` reports, or None."""
    top = (exc.name or "").partition(".")[0]
    return top if top in WORKFLOW_MODULES else None


def _needs_workflow(command: str, module: str) -> int:
    print(f"duelbench {command}: needs {module}, a dependency of the workflow; install it with {WORKFLOW_INSTALL}",
          file=sys.stderr)
    return 2


def _user_errors() -> tuple[type[BaseException], ...]:
    errors: tuple[type[BaseException], ...] = (LookupError, ValueError, FileNotFoundError)
    if provides("duelbench.data.errors", "DataError"):
        errors += (_load("duelbench.data.errors", "DataError"),)
    return errors


def build_parser(commands: Sequence[Command]) -> tuple[argparse.ArgumentParser, dict]:
    parser = argparse.ArgumentParser(
        prog="duelbench",
        description="Dueling-bandit benchmark and paper-replication suite. "
        "The full workflow is run with snakemake (see README.md).",
    )
    parser.add_argument("--version", action="version", version=f"duelbench {duelbench.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    handlers: dict[str, Callable[[argparse.Namespace], int]] = {}
    for cmd in commands:
        if cmd.delegate is not None:
            sub.add_parser(cmd.name, help=cmd.help, add_help=False)
        else:
            p = sub.add_parser(cmd.name, help=cmd.help, description=cmd.help)
            handlers[cmd.name] = cmd.build(p)
    return parser, handlers


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = available_commands()
    by_name = {c.name: c for c in commands}
    if argv and argv[0] in by_name and os.environ.get(PLUGIN_PATH_ENV):
        _load(PLUGINS, "install")()  # a plug-in file that fails to import is reported and skipped
    if argv and argv[0] in by_name and (module := by_name[argv[0]].missing()):
        return _needs_workflow(argv[0], module)
    # Delegated commands get their arguments untouched (including --help).
    if argv and argv[0] in by_name and by_name[argv[0]].delegate is not None:
        try:
            rc = _load(*by_name[argv[0]].delegate)(argv[1:])
        except KeyboardInterrupt:
            return _interrupted(argv[0])
        except ModuleNotFoundError as exc:
            if (module := _workflow_module(exc)) is None:
                raise
            return _needs_workflow(argv[0], module)
        return 0 if rc is None else int(rc)
    parser, handlers = build_parser(commands)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return int(handlers[args.command](args) or 0)
    except ModuleNotFoundError as exc:
        if (module := _workflow_module(exc)) is None:
            raise
        return _needs_workflow(args.command, module)
    except _user_errors() as exc:
        # User errors (unknown name, bad parameter, missing data file): one line, no traceback.
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"duelbench {args.command}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return _interrupted(args.command, getattr(args, "out", None))


def _interrupted(command: str, out: Path | None = None) -> int:
    """One line for Ctrl-C (no traceback); the exit status of an interrupted command."""
    unsaved = "; the result was not saved" if out is not None else ""
    print(f"duelbench {command}: interrupted (Ctrl-C){unsaved}", file=sys.stderr)
    return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
