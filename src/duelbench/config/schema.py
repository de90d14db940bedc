"""Validation of a configuration: the JSON schemas of the workflow and the semantic checks.

Every problem is one line naming the key, what was expected and the fix, e.g.
``demo.runs: -3 is less than the minimum of 1`` or ``demo.typo: unknown key (allowed: ...; did
you mean ...?)``.
"""

from __future__ import annotations

import difflib
import functools
import os
from collections.abc import Iterable, Mapping

import jsonschema
import yaml

from .entries import algorithm_entries, check_datasets
from .errors import ConfigError
from .fidelity import UserKeys, effective_config

TOP_LEVEL_KEYS = ("fidelity", "results", "data", "archive", "fidelities")


def _key_path(path: Iterable) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _load_schema(schema_path: str) -> dict:
    """The schema at ``schema_path`` (read-only: parsed once per version of the file; a
    validation reads each schema several times)."""
    st = os.stat(schema_path)
    return _parsed_schema(os.path.abspath(schema_path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=64)
def _parsed_schema(path: str, mtime_ns: int, size: int) -> dict:
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _suggest(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def schema_errors(config: Mapping, schema_path: str, prefix: tuple = ()) -> list[str]:
    """Every violation of the JSON schema at ``schema_path``, one readable line each.

    Lines look like ``demo.runs: -3 is less than the minimum of 1`` or ``demo.typo: unknown key
    (allowed: ...; did you mean ...?)``; ``prefix`` is the key path of ``config`` inside the
    whole configuration (for a section checked with its own schema).
    """
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


def validate_config(config: Mapping, schema_path: str, sections: Mapping[str, str] | None = None,
                    user: UserKeys | None = None) -> dict:
    """Check ``config`` and its effective form (after the fidelity's overrides), then
    :func:`check_config`.

    ``sections`` maps each experiment section to its own schema (default:
    :func:`section_schemas`); a top-level key that is neither a key of the main schema nor such
    a section is rejected.  ``user`` (what the user's configuration files set) keeps the user's
    values over the fidelity's overrides and names the file of each problem.  Returns the
    effective configuration; raises :class:`ConfigError` with one short line per problem, each
    naming the key (and its file), what was expected and the fix.
    """
    sections = section_schemas(schema_path) if sections is None else sections
    errors = _config_errors(config, schema_path, sections)
    if errors:
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(_in_file(e, user) for e in errors))
    try:
        eff = check_config(config, user)
    except ConfigError as exc:
        raise ConfigError(_in_file(str(exc), user)) from None
    errors = _config_errors(eff, schema_path, sections)
    if errors:
        name = eff.get("fidelity")
        raise ConfigError(
            f"invalid configuration after applying fidelities.{name}.overrides:\n  "
            + "\n  ".join(_in_file(e, user) for e in errors)
        )
    return eff


def _in_file(line: str, user: UserKeys | None) -> str:
    """``line`` (``key.path: problem``) prefixed with the file that set the key, when known."""
    if user is None:
        return line
    where = user.source(line.split(": ", 1)[0])
    return f"{where}: {line}" if where else line


def require_keys(section: str, settings: Mapping, keys: Iterable[str]) -> None:
    """:class:`ConfigError` for the first of ``keys`` missing from the settings of ``section``,
    naming the key and the section's schema."""
    for key in keys:
        if key not in settings:
            raise ConfigError(f"{section}.{key}: missing (see workflow/schemas/{section}.schema.yaml)")


def check_config(config: Mapping, user: UserKeys | None = None) -> dict:
    """Semantic checks beyond the JSON schema; returns the effective configuration.

    * the fidelity is defined;
    * in every experiment section (a mapping with ``algorithms``/``datasets`` lists), every
      algorithm is registered with valid parameters and every dataset is known.

    ``user`` is passed to :func:`~duelbench.config.fidelity.effective_config` (the user's values
    win over the fidelity's overrides). Raises :class:`ConfigError` with the offending key in
    the message.
    """
    if "fidelities" in config and config.get("fidelity", "paper") not in config["fidelities"]:
        raise ConfigError(
            f"fidelity: {config.get('fidelity')!r} is not defined under 'fidelities' "
            f"(defined: {', '.join(sorted(config['fidelities']))})"
        )
    eff = effective_config(config, user=user)
    for section, value in eff.items():
        if not isinstance(value, Mapping) or section == "fidelities":
            continue
        if isinstance(value.get("algorithms"), list):
            algorithm_entries(value["algorithms"], where=f"{section}.algorithms")
        if isinstance(value.get("datasets"), list):
            check_datasets(value["datasets"], where=f"{section}.datasets")
    return eff
