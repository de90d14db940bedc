"""The experiment's tables as the statistics read them (:class:`Tables`), and how numbers and
paths are shown; CSV writing and reading are :mod:`duelbench.experiments.tables`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import pandas as pd

from duelbench.data.paths import display_path

from ..tables import read_rows


def display(p) -> str:
    """A path as recorded in sidecars (relative to the checkout when inside it)."""
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
