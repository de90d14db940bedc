"""The experiment's CSV tables: exact writing and reading, and :class:`Tables` (the outputs the
statistics are computed from).  Floats are written at full precision (``repr``) and read back
bit for bit."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np


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


def write_rows(path: str, columns: Sequence[str], rows: Sequence[Mapping]) -> None:
    """Write ``rows`` as CSV atomically, every float at full precision."""
    from duelbench.provenance.sidecar import atomic_write_text

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([_cell(r.get(c)) for c in columns])
    atomic_write_text(path, buf.getvalue())


def read_rows(path: str) -> list[dict]:
    """Rows of a CSV as dicts of strings."""
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def to_float(x: str) -> float:
    """Parse a CSV cell written by :func:`write_rows` (empty -> NaN)."""
    return float(x) if x not in ("", None) else math.nan


def display(p) -> str:
    """A path as recorded in sidecars (relative to the checkout when inside it)."""
    from duelbench.data.paths import display_path

    return display_path(p)


def sig(x, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits (scientific outside [1e-2, 1e4)); empty for None/NaN."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    x = float(x)
    if x != 0 and (abs(x) >= 1e4 or abs(x) < 1e-2):
        return f"{x:.{digits - 1}e}"
    return f"{x:.{digits}g}"


def read_regret(path: str):
    """``regret.csv`` or ``final_regret.csv`` as a DataFrame (exact floats, ``variant`` as bool)."""
    import pandas as pd

    df = pd.read_csv(path, dtype={"param_hash": str, "dataset": str, "algorithm": str, "label": str},
                     float_precision="round_trip", keep_default_na=False, na_values=[""])
    df["variant"] = df["variant"].astype(str).str.lower() == "true"
    return df


@dataclass
class Tables:
    """The experiment's tables, as read from its outputs (any of them may be missing: None)."""

    settings: dict
    bounds: dict = field(default_factory=dict)  # matrix -> row of bound_constants.csv
    winners: dict = field(default_factory=dict)  # matrix -> rows of bound_winners.csv
    datasets: dict = field(default_factory=dict)  # dataset -> row of datasets.csv
    table1: dict = field(default_factory=dict)  # quantity -> row of table1.csv
    finals: object = None  # DataFrame of final_regret.csv
    regret: object = None  # DataFrame of regret.csv

    @classmethod
    def read(cls, s: Mapping, *, bounds=None, winners=None, datasets=None, table1=None, final=None,
             regret=None) -> "Tables":
        t = cls(settings=dict(s))
        if bounds:
            t.bounds = {r["matrix"]: r for r in read_rows(bounds)}
        if winners:
            for r in read_rows(winners):
                t.winners.setdefault(r["matrix"], []).append(r)
        if datasets:
            t.datasets = {r["dataset"]: r for r in read_rows(datasets)}
        if table1:
            t.table1 = {r["quantity"]: r for r in read_rows(table1)}
        if final:
            t.finals = read_regret(final)
        if regret:
            t.regret = read_regret(regret)
        return t
