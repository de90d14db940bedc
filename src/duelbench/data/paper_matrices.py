"""Preference matrices printed in the papers, read from ``data/matrices/``.

Each dataset ``<name>`` has a provenance file ``data/matrices/<name>.yaml``
(format: ``data/matrices/README.md``).  Two kinds exist:

``kind: printed``
    The values are in ``<name>.csv``: the tokens exactly as printed in the
    paper text (one row per line, comma-separated, ``#`` comment lines), e.g.
    Komiyama et al. (ICML 2016), Table 2 (paper 000, lines 140-143) and
    Table 3(a)-(f) (lines 389-445).  Corrections listed in the YAML (the only
    one: Table 3(e) entry (4,2), printed 0.276, used 0.273 = 1 - 0.727 --
    paper 000 lines 434/436; see ``mslr5_condorcet_printed.yaml``) are applied
    by :func:`read_printed`, which first checks that the CSV holds the printed
    token.

``kind: submatrix``
    Full-precision submatrices of a downloaded 136x136 MSLR matrix: the YAML
    records the parent dataset and the 0-based ranker indices found by
    :func:`find_submatrix`; no values are stored in the repository.

Only this module parses these files; :mod:`duelbench.data.registry` builds
:class:`~duelbench.problems.matrix.PreferenceMatrix` objects from them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from .errors import InvalidDataFileError
from .paths import matrices_dir

__all__ = [
    "PrintedMatrix",
    "provenance_path",
    "read_provenance",
    "read_csv_tokens",
    "read_printed",
    "find_submatrix",
    "submatrix_deviation",
]


class PrintedMatrix:
    """A printed matrix after parsing: values, printed tokens and provenance.

    Attributes
    ----------
    name : str
    values : numpy.ndarray
        float64 (K, K), with the YAML corrections applied.
    tokens : list[list[str]]
        The CSV tokens verbatim (before corrections).
    provenance : dict
        The parsed YAML.
    csv_path, yaml_path : pathlib.Path
    """

    __slots__ = ("name", "values", "tokens", "provenance", "csv_path", "yaml_path")

    def __init__(self, name, values, tokens, provenance, csv_path, yaml_path):
        self.name = name
        self.values = values
        self.tokens = tokens
        self.provenance = provenance
        self.csv_path = csv_path
        self.yaml_path = yaml_path

    @property
    def arm_names(self) -> list[str] | None:
        """Arm names from the YAML (``arm_names``), or None."""
        return self.provenance.get("arm_names")

    def __repr__(self) -> str:
        return f"PrintedMatrix(name={self.name!r}, K={self.values.shape[0]}, csv={os.fspath(self.csv_path)!r})"


def provenance_path(name: str, directory: Path | None = None) -> Path:
    """Path of ``<name>.yaml`` in ``directory`` (default: ``data/matrices`` of the checkout)."""
    return Path(directory if directory is not None else matrices_dir()) / f"{name}.yaml"


def read_provenance(name: str, directory: Path | None = None) -> dict[str, Any]:
    """Parse and minimally check ``<name>.yaml``.

    Raises :class:`InvalidDataFileError` naming the file if it is missing,
    is not a YAML mapping, or lacks the keys ``name``, ``kind`` and ``K``.
    """
    path = provenance_path(name, directory)
    if not path.is_file():
        raise InvalidDataFileError(
            f"provenance file {path} not found. Fix: run from a duelbench checkout (or set DUELBENCH_ROOT "
            "to it) so that data/matrices/ is available."
        )
    try:
        with open(path, encoding="utf-8") as fh:
            doc = yaml.safe_load(fh)
    except yaml.YAMLError as exc:
        raise InvalidDataFileError(
            f"{path}: not valid YAML ({exc}). Fix: repair the file (format: data/matrices/README.md)."
        ) from None
    if not isinstance(doc, dict):
        raise InvalidDataFileError(f"{path}: expected a YAML mapping at top level, got {type(doc).__name__}.")
    for key in ("name", "kind", "K"):
        if key not in doc:
            raise InvalidDataFileError(f"{path}: missing key {key!r}. Fix: add it (format: data/matrices/README.md).")
    if doc["name"] != name:
        raise InvalidDataFileError(f"{path}: key 'name' is {doc['name']!r}, expected {name!r} (the file name).")
    if doc["kind"] not in ("printed", "submatrix"):
        raise InvalidDataFileError(f"{path}: key 'kind' must be 'printed' or 'submatrix', got {doc['kind']!r}.")
    return doc


def read_csv_tokens(path: Path) -> list[list[str]]:
    """Read a matrix CSV as a list of rows of string tokens.

    Blank lines and lines starting with ``#`` are skipped; tokens are
    separated by commas and stripped of whitespace.  Raises
    :class:`InvalidDataFileError` (with file and line) if a token is empty or
    the matrix is not square.
    """
    rows: list[list[str]] = []
    widths: list[tuple[int, int]] = []
    try:
        fh = open(path, encoding="utf-8")
    except OSError as exc:
        raise InvalidDataFileError(f"cannot read matrix file {path}: {exc}") from None
    with fh:
        for lineno, line in enumerate(fh, start=1):
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            toks = [t.strip() for t in s.split(",")]
            if any(t == "" for t in toks):
                raise InvalidDataFileError(
                    f"{path}:{lineno}: empty token in {s!r}. Fix: one comma between entries, no trailing comma."
                )
            rows.append(toks)
            widths.append((lineno, len(toks)))
    if not rows:
        raise InvalidDataFileError(f"{path}: no matrix rows found.")
    n = len(rows)
    for lineno, w in widths:
        if w != n:
            raise InvalidDataFileError(
                f"{path}:{lineno}: row has {w} entries but the file has {n} rows; a preference matrix is square. "
                "Fix: re-check the transcription of this row."
            )
    return rows


def _parse_tokens(tokens: list[list[str]], path: Path) -> np.ndarray:
    out = np.empty((len(tokens), len(tokens)), dtype=np.float64)
    for i, row in enumerate(tokens):
        for j, tok in enumerate(row):
            try:
                out[i, j] = float(tok)
            except ValueError:
                raise InvalidDataFileError(
                    f"{path}: entry (row {i + 1}, column {j + 1}) = {tok!r} is not a number. "
                    "Fix: re-check the transcription."
                ) from None
    return out


def read_printed(name: str, directory: Path | None = None) -> PrintedMatrix:
    """Read a ``kind: printed`` dataset: CSV tokens + YAML corrections.

    Each correction ``{entry: [i, j], printed: "...", corrected: "..."}``
    (1-based paper indices) is applied only after checking that the CSV token
    at ``(i, j)`` equals ``printed``; otherwise the transcription and its
    documented correction disagree and :class:`InvalidDataFileError` is raised.
    The result is not validated as a preference matrix here (the registry does
    that with :class:`~duelbench.problems.matrix.PreferenceMatrix`).
    """
    doc = read_provenance(name, directory)
    ypath = provenance_path(name, directory)
    if doc["kind"] != "printed":
        raise InvalidDataFileError(f"{ypath}: dataset {name!r} has kind {doc['kind']!r}, not 'printed'.")
    csv_name = doc.get("values")
    if not isinstance(csv_name, str):
        raise InvalidDataFileError(f"{ypath}: key 'values' (the CSV file name) is missing or not a string.")
    cpath = ypath.parent / csv_name
    tokens = read_csv_tokens(cpath)
    K = len(tokens)
    if K != doc["K"]:
        raise InvalidDataFileError(f"{cpath}: {K} x {K} matrix, but {ypath} says K = {doc['K']}.")
    values = _parse_tokens(tokens, cpath)
    for n, corr in enumerate(doc.get("corrections") or []):
        try:
            i, j = (int(x) for x in corr["entry"])
            printed, corrected = str(corr["printed"]), str(corr["corrected"])
        except (KeyError, TypeError, ValueError):
            raise InvalidDataFileError(
                f"{ypath}: corrections[{n}] must have entry: [row, column] (1-based), "
                'printed: "..." and corrected: "...".'
            ) from None
        if not (1 <= i <= K and 1 <= j <= K):
            raise InvalidDataFileError(
                f"{ypath}: corrections[{n}].entry = [{i}, {j}] is outside the {K} x {K} matrix (1-based)."
            )
        if tokens[i - 1][j - 1] != printed:
            raise InvalidDataFileError(
                f"{ypath}: corrections[{n}] expects the printed token {printed!r} at (row {i}, column {j}) of "
                f"{cpath}, found {tokens[i - 1][j - 1]!r}. Fix: the CSV must hold the paper's printed token; "
                "corrections belong in the YAML."
            )
        try:
            values[i - 1, j - 1] = float(corrected)
        except ValueError:
            raise InvalidDataFileError(f"{ypath}: corrections[{n}].corrected = {corrected!r} is not a number.") from None
    names = doc.get("arm_names")
    if names is not None and (not isinstance(names, list) or len(names) != K):
        raise InvalidDataFileError(f"{ypath}: arm_names must be null or a list of {K} names.")
    return PrintedMatrix(name, values, tokens, doc, cpath, ypath)


def find_submatrix(full, target, tol: float = 0.0005 + 1e-9, *, max_matches: int = 1000) -> list[tuple[int, ...]]:
    """All ordered index tuples ``a`` with ``|full[a_i, a_j] - target[i, j]| <= tol`` for all ``i != j``.

    Used to locate the 5-arm MSLR matrices printed with 3 decimals
    (Komiyama et al. 2016, Table 3(e)(f), paper 000 lines 433-445) inside the
    136x136 informational matrix.  ``target`` entries that are NaN are
    unconstrained (e.g. a suspected typo); the diagonal is ignored.  The
    default tolerance is half a unit of the 3rd decimal (plus 1e-9 for the
    binary representation of the printed decimals).

    The search extends partial tuples depth-first: arm ``k`` of the target may
    be ranker ``b`` only if ``b`` is compatible, in both orientations, with
    every ranker already chosen for arms ``0..k-1``.  The compatibility masks
    are precomputed per target entry, so each extension costs a few boolean
    vector operations; for 3-decimal targets the candidate sets are tiny and
    the search over 136 rankers takes milliseconds.

    Returns the matches in lexicographic order (at most ``max_matches``).
    """
    F = np.asarray(full, dtype=np.float64)
    T = np.asarray(target, dtype=np.float64)
    if F.ndim != 2 or F.shape[0] != F.shape[1]:
        raise ValueError(f"full must be a square matrix, got shape {F.shape}")
    if T.ndim != 2 or T.shape[0] != T.shape[1] or T.shape[0] > F.shape[0]:
        raise ValueError(f"target must be a square matrix no larger than full, got shape {T.shape}")
    n, K = F.shape[0], T.shape[0]
    ok = {}
    for i in range(K):
        for j in range(K):
            if i != j and not np.isnan(T[i, j]):
                ok[i, j] = np.abs(F - T[i, j]) <= tol
    matches: list[tuple[int, ...]] = []

    def extend(chosen: list[int]) -> None:
        if len(matches) >= max_matches:
            return
        k = len(chosen)
        if k == K:
            matches.append(tuple(chosen))
            return
        mask = np.ones(n, dtype=bool)
        mask[chosen] = False
        for i, a in enumerate(chosen):
            if (i, k) in ok:
                mask &= ok[i, k][a, :]
            if (k, i) in ok:
                mask &= ok[k, i][:, a]
        for b in np.flatnonzero(mask):
            extend(chosen + [int(b)])

    extend([])
    return matches


def submatrix_deviation(full, indices, target) -> float:
    """``max |full[indices][:, indices] - target|`` over the off-diagonal entries (NaN targets ignored)."""
    F = np.asarray(full, dtype=np.float64)
    idx = np.asarray(indices, dtype=np.intp)
    T = np.asarray(target, dtype=np.float64)
    d = np.abs(F[np.ix_(idx, idx)] - T)
    np.fill_diagonal(d, 0.0)
    return float(np.nanmax(d))
