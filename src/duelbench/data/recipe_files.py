"""Reading folders of dataset recipes (``data/sampled/*.yaml``, ``data/generated/*.yaml``).

Each file is a mapping with one key, ``datasets``: dataset name → recipe mapping.  Names must
be unique across the files of a folder; every error names the file (and the dataset).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, TypeVar

import yaml

from .errors import InvalidDataFileError

R = TypeVar("R")


def read_recipe_folder(directory: Path, parse: Callable[[str, object, Path], R]) -> dict[str, R]:
    """``{name: parse(name, body, file)}`` over every ``*.yaml`` of ``directory`` (sorted by file name)."""
    out: dict[str, R] = {}
    files: dict[str, Path] = {}
    for file in sorted(directory.glob("*.yaml")) if directory.is_dir() else []:
        try:
            doc = yaml.safe_load(file.read_text()) or {}
        except yaml.YAMLError as exc:
            raise InvalidDataFileError(f"{file}: not valid YAML ({exc})") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("datasets") or {}, dict):
            raise InvalidDataFileError(f"{file}: expected a top-level mapping with key 'datasets' (a mapping)")
        for name, body in (doc.get("datasets") or {}).items():
            if name in out:
                raise InvalidDataFileError(f"{file}: dataset {name!r} is also declared in {files[name]}")
            out[name] = parse(name, body, file)
            files[name] = file
    return out
