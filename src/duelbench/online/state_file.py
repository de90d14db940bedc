"""The file of a saved :class:`~duelbench.online.OnlinePolicy`: one ``.npz`` archive.

Entries:

* ``meta`` — a JSON document (a 0-d unicode array): ``format`` (:data:`FORMAT_VERSION`),
  ``algorithm``, ``params`` (canonical), ``code_hash`` (the algorithm's
  :func:`~duelbench.algorithms.registry.source_hash`), ``K``, ``horizon``, ``seed``,
  ``dataset``, ``run``, ``t`` (outcomes received), ``pending`` (pairs handed out and waiting for
  their outcome, with whether the engine would draw their duel), ``rng`` (the generator's
  ``bit_generator.state``), ``state`` (the layout of the kernel state, see :func:`flatten`) and
  ``duelbench`` (the version that wrote it);
* ``state_0``, ``state_1``, … — the arrays of the kernel state, dtype and shape as in memory;
* ``comparisons``, ``wins`` — the policy's own K×K tallies.

The file holds no pickled object (it is read with ``allow_pickle=False``).  Bump
:data:`FORMAT_VERSION` whenever this layout or the state layout of a driver
(:mod:`duelbench.online.drivers`) changes.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np

#: Version of the layout written by :func:`write` (see the module docstring).
FORMAT_VERSION = 2
#: The ``kind`` entry of ``meta``, which marks a file as a saved policy.
KIND = "duelbench-online-policy"


class PolicyFileError(ValueError):
    """A file that cannot be loaded as a policy (one line: what differs, what to do)."""


def flatten(state, arrays: list) -> dict | list:
    """The layout of ``state`` as JSON, appending its arrays to ``arrays``.

    A tuple becomes a list of layouts; an array ``{"array": k}`` (its index in ``arrays``); a
    bool, int or float ``{"bool": v}``, ``{"int": v}``, ``{"float": v}``.
    """
    if isinstance(state, tuple):
        return [flatten(x, arrays) for x in state]
    if isinstance(state, np.ndarray):
        arrays.append(state)
        return {"array": len(arrays) - 1}
    if isinstance(state, (bool, np.bool_)):
        return {"bool": bool(state)}
    if isinstance(state, (int, np.integer)):
        return {"int": int(state)}
    if isinstance(state, (float, np.floating)):
        return {"float": float(state)}
    raise TypeError(f"cannot save a kernel state holding a {type(state).__name__}")


def unflatten(layout, arrays: dict):
    """The state described by ``layout`` (:func:`flatten`), its arrays taken from ``arrays``
    (``state_<k>`` entries)."""
    if isinstance(layout, list):
        return tuple(unflatten(x, arrays) for x in layout)
    (kind, value), = layout.items()
    if kind == "array":
        return np.array(arrays[f"state_{value}"], copy=True, order="C")
    return {"bool": bool, "int": int, "float": float}[kind](value)


def describe(layout, arrays: dict | list) -> list:
    """What must agree between two states for one to replace the other: the nesting, the kind
    of every scalar and the dtype and shape of every array."""
    if isinstance(layout, list):
        return [describe(x, arrays) for x in layout]
    (kind, value), = layout.items()
    if kind != "array":
        return [kind]
    a = arrays[f"state_{value}"] if isinstance(arrays, dict) else arrays[value]
    return ["array", str(a.dtype), list(a.shape)]


def write(path, meta: dict, state, extra: dict[str, np.ndarray]) -> Path:
    """Write ``meta`` (completed with ``format``, ``kind`` and the state layout), the state's
    arrays and ``extra`` arrays to ``path`` (``.npz`` appended by numpy when missing)."""
    arrays: list = []
    layout = flatten(state, arrays)
    doc = {"kind": KIND, "format": FORMAT_VERSION, **meta, "state": layout}
    entries = {f"state_{k}": a for k, a in enumerate(arrays)}
    entries.update(extra)
    path = Path(os.fspath(path))
    if path.suffix != ".npz":
        path = path.with_name(path.name + ".npz")
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as fh:
        np.savez(fh, meta=np.array(json.dumps(doc)), **entries)
    os.replace(tmp, path)
    return path


def read(path) -> tuple[dict, dict[str, np.ndarray]]:
    """``(meta, arrays)`` of a policy file, after checking that it is one and of this format."""
    path = Path(os.fspath(path))
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except FileNotFoundError:
        raise PolicyFileError(f"no policy file {str(path)!r}: give the path p.save() wrote") from None
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise PolicyFileError(f"{str(path)!r} is not a policy file written by p.save() ({exc})") from None
    try:
        meta = json.loads(str(arrays.pop("meta")))
        kind, version = meta["kind"], meta["format"]
    except (KeyError, ValueError, TypeError):
        raise PolicyFileError(f"{str(path)!r} is not a policy file written by p.save() (no policy metadata)") from None
    if kind != KIND:
        raise PolicyFileError(f"{str(path)!r} is not a policy file written by p.save() (kind {kind!r})")
    if version != FORMAT_VERSION:
        raise PolicyFileError(
            f"policy file {str(path)!r} has format version {version}, this duelbench reads version "
            f"{FORMAT_VERSION}: load it with the duelbench that wrote it (version {meta.get('duelbench', '?')})")
    return meta, arrays
