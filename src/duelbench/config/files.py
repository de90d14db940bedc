"""``duelbench config-check [FILE ...]``: check workflow configuration files before Snakemake
reads them.

Snakemake reports any YAML problem in a ``--configfile`` (a syntax error, a tag such as
``!env``) as "not valid JSON or YAML … tabs", without the file or the line. This command reads
each file as plain YAML (no tags, no key given twice in one mapping, not empty) and names the
file, line and column of the first problem, then merges the files over ``config/config.yaml``
in the order given (as Snakemake does) and checks the result against the workflow schema
(:func:`resolve_config`, which the workflow runs too). A value a file sets wins over the active
fidelity's override of the same key; each such key is reported in one line.
``make figures`` and ``make quick`` run it on the configuration files in ``SNAKEMAKE_ARGS``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from duelbench.provenance.codehash import PACKAGE_ROOT

from .errors import ConfigError
from .fidelity import UserKeys, deep_merge, override_notes
from .schema import check_config, validate_config

CHECKOUT = PACKAGE_ROOT.parent.parent
DEFAULT_CONFIG = CHECKOUT / "config" / "config.yaml"
SCHEMA = CHECKOUT / "workflow" / "schemas" / "config.schema.yaml"
#: How the checkout's configuration is named in messages.
BASE_NAME = "config/config.yaml"


class UniqueKeyLoader(yaml.SafeLoader):
    """Plain YAML (no tags) that refuses a key given twice in one mapping, naming both lines."""

    def construct_mapping(self, node, deep=False):
        """The mapping of ``node``; a ConstructorError at the second occurrence of a key."""
        first: dict = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                seen = key in first
            except TypeError:
                continue  # an unhashable key: the base class reports it
            if seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (first on line {first[key] + 1}); keep one",
                    key_node.start_mark)
            first[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


def _yaml_problem(path: str | Path, text: str, exc: yaml.YAMLError) -> ConfigError:
    """A ConfigError naming file, line and column of a YAML problem, with the fix."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    hint = ""
    if "could not determine a constructor for the tag" in str(exc):
        hint = "; YAML tags are not supported in configuration files: write the value itself"
    elif "\t" in text:
        hint = "; indent with spaces, not tabs"
    return ConfigError(f"{where}: {problem}{hint}")


def load_yaml(path: str | Path) -> dict:
    """A configuration file as a mapping; ConfigError naming file, line and column otherwise.

    Refused: YAML errors and tags, a key given twice in one mapping, a file that is not a
    mapping, and an empty file (Snakemake refuses an empty ``--configfile``).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the configuration file ({exc.strerror})") from None
    try:
        data = yaml.load(text, Loader=UniqueKeyLoader)
    except yaml.YAMLError as exc:
        raise _yaml_problem(path, text, exc) from None
    if data is None:
        raise ConfigError(f"{path}: the configuration file is empty (Snakemake refuses an empty --configfile); "
                          "give it at least one key, or leave it out")
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


def file_layers(files: Sequence[str | Path]) -> list[tuple[str, dict]]:
    """``(file name, values)`` of each configuration file, read by :func:`load_yaml`."""
    return [(str(f), load_yaml(f)) for f in files]


def command_line_layers(configfiles: Sequence[str | Path], config: Mapping | None = None
                        ) -> list[tuple[str, dict]]:
    """The user's layers of a Snakemake command line: its ``--configfile`` files in order (each
    named by its path, relative to the working folder when inside it), then its ``--config``
    values (named ``--config``)."""
    layers = file_layers([_shown_path(f) for f in configfiles])
    if config:
        layers.append(("--config", dict(config)))
    return layers


def _shown_path(path: str | Path) -> str:
    """``path`` relative to the working folder when inside it, else as given."""
    rel = os.path.relpath(path)
    return str(path) if rel.startswith("..") else rel


def resolve_config(config: Mapping, layers: Sequence[tuple[str, Mapping]], base: str = BASE_NAME,
                   schema: str | Path = SCHEMA) -> tuple[dict, list[str]]:
    """The effective configuration of ``config`` with the user's ``layers`` merged in order.

    Both ``duelbench config-check`` and the workflow decide with this function.

    Parameters
    ----------
    config : Mapping
        The checkout's configuration (merging layers it already holds changes nothing).
    layers : sequence of (str, Mapping)
        The user's configuration files (name, values), then the command line's ``--config``.
    base : str
        How ``config`` is named in messages.
    schema : str or Path
        The workflow's main schema.

    Returns
    -------
    effective : dict
        The validated configuration of the active fidelity; a key a layer sets keeps the
        layer's value over the fidelity's override.
    notes : list of str
        One line per fidelity override a layer's value replaced
        (:func:`~duelbench.config.fidelity.override_notes`).

    Raises
    ------
    ConfigError
        One line per problem, naming the file and the key.
    """
    user = UserKeys.from_layers(layers, base=base)
    merged = deep_merge(config, user.values)
    effective = validate_config(merged, str(schema), user=user)
    return effective, override_notes(merged, user)


def check_files(files: Sequence[str | Path], base: str | Path = DEFAULT_CONFIG) -> dict:
    """Parse ``base`` and ``files``, merge them in order and validate; returns the effective
    configuration or raises ConfigError."""
    return resolve_config(load_yaml(base), file_layers(files), base=_base_name(base))[0]


def _base_name(base: str | Path) -> str:
    """How the base configuration file is named in messages."""
    return BASE_NAME if Path(base).resolve() == DEFAULT_CONFIG.resolve() else str(base)


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
        _, notes = resolve_config(load_yaml(DEFAULT_CONFIG), file_layers(files))
    except ConfigError as exc:
        print(f"duelbench config-check: error: {exc}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"duelbench config-check: {note}", file=sys.stderr)
    print(f"configuration OK: config/config.yaml{''.join(' + ' + f for f in files)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
