"""The experiments' CSV tables: exact writing and reading.  Floats are written at full precision
(``repr``) and read back bit for bit."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from duelbench.provenance.sidecar import atomic_write_text


def _cell(v) -> str:
    """CSV text of a value: floats at full precision (repr), bools as true/false."""
    if v is None:
        return ""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, np.integer):
        return str(int(v))
    if isinstance(v, np.floating):
        return repr(float(v))
    return str(v)


def _plain(v):
    """A numpy scalar as the Python one, a NaN as None (an empty cell)."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return None if math.isnan(v) else v
    return v


def write_rows(path: str, columns: Sequence[str], rows: Iterable[Mapping], *, empty_nan: bool = False) -> None:
    """Write ``rows`` as CSV atomically, every float at full precision; a column a row lacks is
    an empty cell.

    Parameters
    ----------
    empty_nan : bool
        Write a NaN as an empty cell (numpy floats as Python floats) instead of ``nan``.
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        values = [r.get(c) for c in columns]
        w.writerow([_cell(_plain(v) if empty_nan else v) for v in values])
    atomic_write_text(path, buf.getvalue())


def read_rows(path: str) -> list[dict]:
    """Rows of a CSV as dicts of strings."""
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def to_float(x: str) -> float:
    """Parse a CSV cell written by :func:`write_rows` (empty -> NaN)."""
    return float(x) if x not in ("", None) else math.nan
