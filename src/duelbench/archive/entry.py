"""One archive entry: named arrays and their key in a small, deterministic, exact file.

Format: a zip file (deflate, level 9) holding ``entry.json`` (the key and, per array, its dtype
and shape) and one member per array with the array's bytes *shuffled*: byte k of every element,
then byte k+1, ... (the transform of HDF5's and Blosc's shuffle filter).  Cumulative regrets are
smooth float64 sequences whose high bytes repeat, so shuffling roughly halves the compressed size
against deflating the plain bytes; decoding restores the exact bits.  Member dates are fixed, so
equal content gives byte-identical files (a refill that reproduces a shard changes nothing in git).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping

import numpy as np

FORMAT = "duelbench.archive-entry/1"
_DATE = (1980, 1, 1, 0, 0, 0)


def _shuffle(a: np.ndarray) -> bytes:
    a = np.ascontiguousarray(a)
    if a.dtype.itemsize == 1 or a.size == 0:
        return a.tobytes()
    return a.view(np.uint8).reshape(-1, a.dtype.itemsize).T.tobytes()


def _unshuffle(data: bytes, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    raw = np.frombuffer(data, dtype=np.uint8)
    if dtype.itemsize > 1 and raw.size:
        raw = raw.reshape(dtype.itemsize, -1).T
    return np.ascontiguousarray(raw).view(dtype).reshape(shape).copy()


def _member(zf: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    zf.writestr(info, data, compresslevel=9)


def encode(key: Mapping, arrays: Mapping[str, np.ndarray]) -> bytes:
    """The bytes of an entry holding ``arrays`` (numeric, any shape) under ``key`` (JSON-able)."""
    meta = {"format": FORMAT, "key": key, "arrays": {}}
    members = []
    for name in sorted(arrays):
        a = np.asarray(arrays[name])
        if a.dtype.kind not in "biuf":
            raise TypeError(f"archive entry array {name!r}: numeric dtype needed, got {a.dtype}")
        a = a.astype(a.dtype.newbyteorder("<"), copy=False)
        meta["arrays"][name] = {"dtype": a.dtype.str, "shape": list(a.shape)}
        members.append((f"arrays/{name}", _shuffle(a)))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        _member(zf, "entry.json", json.dumps(meta, sort_keys=True, indent=1).encode("utf-8"))
        for name, data in members:
            _member(zf, name, data)
    return buf.getvalue()


def decode(data: bytes) -> tuple[dict, dict[str, np.ndarray]]:
    """``(key, arrays)`` of an entry's bytes (ValueError if it is not an entry)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            meta = json.loads(zf.read("entry.json"))
            if meta.get("format") != FORMAT:
                raise ValueError(f"not a {FORMAT} file (format {meta.get('format')!r})")
            arrays = {name: _unshuffle(zf.read(f"arrays/{name}"), np.dtype(spec["dtype"]), tuple(spec["shape"]))
                      for name, spec in meta["arrays"].items()}
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a readable archive entry: {exc}") from None
    return meta["key"], arrays
