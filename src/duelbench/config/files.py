"""``duelbench config-check [FILE ...]``: check workflow configuration files before Snakemake
reads them.

Snakemake reports any YAML problem in a ``--configfile`` (a syntax error, a tag such as
``!env``) as "not valid JSON or YAML … tabs", without the file or the line. This command reads
each file as plain YAML (no tags) and names the file, line and column of the first problem,
then merges the files over ``config/config.yaml`` in the order given (as Snakemake does) and
checks the result against the workflow schema (:func:`duelbench.config.schema.validate_config`).
``make figures`` and ``make quick`` run it on the configuration files in ``SNAKEMAKE_ARGS``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import yaml

from duelbench.provenance.codehash import PACKAGE_ROOT

from .errors import ConfigError
from .fidelity import deep_merge
from .schema import check_config, validate_config

CHECKOUT = PACKAGE_ROOT.parent.parent
DEFAULT_CONFIG = CHECKOUT / "config" / "config.yaml"


def load_yaml(path: str | Path) -> dict:
    """A configuration file as a mapping; ConfigError naming file, line and column otherwise."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the configuration file ({exc.strerror})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        hint = ""
        if "could not determine a constructor for the tag" in str(exc):
            hint = "; YAML tags are not supported in configuration files: write the value itself"
        elif "\t" in text:
            hint = "; indent with spaces, not tabs"
        raise ConfigError(f"{where}: {problem}{hint}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a configuration file is a mapping of keys, got a {type(data).__name__}")
    return data


def checkout_config(path: str | Path = DEFAULT_CONFIG, fidelity: str | None = None) -> dict:
    """The effective configuration of a configuration file (default: the checkout's), at its own
    fidelity or at ``fidelity``; ConfigError naming the file and line of a problem."""
    raw = load_yaml(path)
    if fidelity:
        raw["fidelity"] = fidelity
    return check_config(raw)


def check_files(files: Sequence[str | Path], base: str | Path = DEFAULT_CONFIG) -> dict:
    """Parse ``base`` and ``files``, merge them in order and validate; returns the effective
    configuration or raises ConfigError."""
    config = load_yaml(base)
    for f in files:
        config = deep_merge(config, load_yaml(f))
    return validate_config(config, str(CHECKOUT / "workflow" / "schemas" / "config.schema.yaml"))


def configfiles_in(args: Sequence[str]) -> list[str]:
    """The files named by ``--configfile``/``--configfiles`` in a Snakemake command line."""
    out, take = [], False
    for a in args:
        if a in ("--configfile", "--configfiles"):
            take = True
            continue
        if a.startswith("--configfile=") or a.startswith("--configfiles="):
            out.append(a.split("=", 1)[1])
            continue
        if take and not a.startswith("-"):
            out.append(a)
            continue
        take = False
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="duelbench config-check", description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="*", help="configuration files, merged over config/config.yaml in this order")
    p.add_argument("--snakemake-args", default=None,
                   help="a Snakemake command line: check the files of its --configfile options")
    args = p.parse_args(argv)
    files = list(args.files) + (configfiles_in(args.snakemake_args.split()) if args.snakemake_args else [])
    try:
        check_files(files)
    except ConfigError as exc:
        print(f"duelbench config-check: error: {exc}", file=sys.stderr)
        return 2
    print(f"configuration OK: config/config.yaml{''.join(' + ' + f for f in files)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
