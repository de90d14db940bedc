"""Dataset registry: every preference matrix the suite can load by name.

``load_matrix(name)`` returns a validated, immutable
:class:`~duelbench.problems.matrix.PreferenceMatrix` whose ``name`` is the
registry name.  Loaded matrices are cached per process.

Datasets (K, origin):

=============================  ====  ===========================================================
name                           K     origin
=============================  ====  ===========================================================
cyclic                         4     Komiyama et al. 2016 (paper 000) Table 2, lines 140-143
sushi                          16    paper 000 Table 3(a), lines 389-404 (arm names: line 387)
gap                            5     paper 000 Table 3(b), lines 408-412
multisol                       5     paper 000 Table 3(c), lines 416-420
arxiv                          6     paper 000 Table 3(d), lines 424-429 ("Six rankers"; tie kept)
mslr5_condorcet_printed        5     paper 000 Table 3(e), lines 433-437 (entry (4,2) corrected)
mslr5_noncondorcet_printed     5     paper 000 Table 3(f), lines 441-445
mslr5_condorcet                5     full-precision submatrix of mslr_informational (needs MSLR)
mslr5_noncondorcet             5     full-precision submatrix of mslr_informational (needs MSLR)
mslr_informational             136   Zoghi et al. 2015 (paper 001) App. B; downloaded (needs MSLR)
mslr_navigational              136   idem, navigational click model (needs MSLR)
mslr_perfect                   136   idem, perfect click model (needs MSLR)
=============================  ====  ===========================================================

Provenance of the small matrices: ``data/matrices/<name>.yaml``.  MSLR files:
:mod:`duelbench.data.mslr`.  Seeded random submatrices declared by experiments:
``data/sampled/*.yaml`` (:mod:`duelbench.data.sampled`).  Deterministic synthetic matrices
declared by experiments (generator name + parameters): ``data/generated/*.yaml``
(:mod:`duelbench.data.generated`).

Families of per-run instances (kind ``"family"``, a generated recipe with ``per_run_seed``):
run ``r`` of every algorithm sees instance ``r`` (:func:`load_instance`, also loadable as
``load_matrix("<family>.run<r>")``); ``load_matrix(family)`` raises
:class:`~duelbench.data.generated.FamilyDatasetError`, and :func:`is_family` tells them apart.
The engine simulates them with :func:`duelbench.engine.families.simulate_family`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from . import generated, mslr, paper_matrices, sampled
from .errors import InvalidDataFileError, UnknownDatasetError
from .generated import FamilyDatasetError, instance_name
from .paths import display_path

__all__ = ["DatasetInfo", "DATASETS", "list_datasets", "load_matrix", "dataset_info", "required_files", "clear_cache",
           "is_family", "load_instance", "FamilyDatasetError"]


@dataclass(frozen=True)
class DatasetInfo:
    """Registry entry.

    Attributes
    ----------
    name : str
    description : str
    K : int
        Number of arms.
    origin : str
        Paper, table and paper-text lines (or the data source).
    needs_mslr : bool
        Whether loading needs a downloaded MSLR file (see :mod:`duelbench.data.mslr`).
    kind : str
        ``"printed"`` (CSV transcribed from a paper), ``"submatrix"`` (ranker
        indices into an MSLR matrix), ``"mslr"`` (a whole MSLR file) or
        ``"sampled"`` (a seeded random submatrix declared in ``data/sampled/*.yaml``,
        see :mod:`duelbench.data.sampled`) or ``"generated"`` (a synthetic matrix declared in
        ``data/generated/*.yaml``, see :mod:`duelbench.data.generated`) or ``"family"`` (a
        generated recipe with ``per_run_seed``: one instance per run, K of instance 0) or
        ``"instance"`` (run r's instance ``"<family>.run<r>"`` of a family; not listed in
        :data:`DATASETS`, returned by :func:`dataset_info`).
    """

    name: str
    description: str
    K: int
    origin: str
    needs_mslr: bool
    kind: str


_P000 = "Komiyama, Honda & Nakagawa, ICML 2016 (paper 000)"
_P001 = "Zoghi, Karnin, Whiteson & de Rijke, NIPS 2015 (paper 001)"

DATASETS: dict[str, DatasetInfo] = {
    d.name: d
    for d in (
        DatasetInfo("cyclic", "Cyclic 4-arm matrix; arm 1 is the Condorcet winner, arms 2-4 form a cycle", 4,
                    f"{_P000}, Table 2, lines 140-143", False, "printed"),
        DatasetInfo("sushi", "Sushi preferences of 5,000 users (Kamishima 2003), 16 types; a total order", 16,
                    f"{_P000}, Table 3(a), lines 389-404", False, "printed"),
        DatasetInfo("gap", "Gap: synthetic 5-arm matrix, unique Copeland winner, no Condorcet winner", 5,
                    f"{_P000}, Table 3(b), lines 408-412", False, "printed"),
        DatasetInfo("multisol", "MultiSol: synthetic 5-arm matrix with 3 Copeland winners in a cycle", 5,
                    f"{_P000}, Table 3(c), lines 416-420", False, "printed"),
        DatasetInfo("arxiv", "ArXiv / Six rankers (Yue & Joachims 2011); printed tie mu_46 = 0.50 kept", 6,
                    f"{_P000}, Table 3(d), lines 424-429", False, "printed"),
        DatasetInfo("mslr5_condorcet_printed", "MSLR fixed 5-arm Condorcet matrix, 3 decimals as printed "
                    "(entry (4,2) 0.276 corrected to 0.273)", 5, f"{_P000}, Table 3(e), lines 433-437", False, "printed"),
        DatasetInfo("mslr5_noncondorcet_printed", "MSLR fixed 5-arm non-Condorcet matrix (3 Copeland winners), "
                    "3 decimals as printed", 5, f"{_P000}, Table 3(f), lines 441-445", False, "printed"),
        DatasetInfo("mslr5_condorcet", "MSLR fixed 5-arm Condorcet matrix, full precision: informational "
                    "rankers [1, 3, 2, 0, 4]", 5, f"submatrix of mslr_informational reproducing {_P000}, Table 3(e)",
                    True, "submatrix"),
        DatasetInfo("mslr5_noncondorcet", "MSLR fixed 5-arm non-Condorcet matrix, full precision: informational "
                    "rankers [92, 6, 91, 93, 104]", 5,
                    f"submatrix of mslr_informational reproducing {_P000}, Table 3(f)", True, "submatrix"),
        DatasetInfo("mslr_informational", mslr.MSLR_FILES["mslr_informational"].description, 136,
                    f"{_P001}, Appendix B, lines 412-418; file {mslr.MSLR_FILES['mslr_informational'].filename}",
                    True, "mslr"),
        DatasetInfo("mslr_navigational", mslr.MSLR_FILES["mslr_navigational"].description, 136,
                    f"{_P001}, Appendix B, line 416; file {mslr.MSLR_FILES['mslr_navigational'].filename}",
                    True, "mslr"),
        DatasetInfo("mslr_perfect", mslr.MSLR_FILES["mslr_perfect"].description, 136,
                    f"{_P001}, Appendix B, line 416; file {mslr.MSLR_FILES['mslr_perfect'].filename}",
                    True, "mslr"),
    )
}


def _register_generated() -> None:
    """Add the recipes of ``data/generated/*.yaml`` (kind ``"generated"``, or ``"family"`` with
    ``per_run_seed``; K from the built matrix, or from a family's instance 0)."""
    for name, r in generated.recipes().items():
        kind = "family" if r.is_family else "generated"
        if name in DATASETS and DATASETS[name].kind != kind:
            raise InvalidDataFileError(f"{r.file}: dataset name {name!r} is already registered")
        desc = r.description or (f"{r.generator} with {r.params}" + (", a new instance per run" if r.is_family else ""))
        DATASETS[name] = DatasetInfo(name, desc, generated.generated_K(name), r.origin or r.file, False, kind)


def _register_sampled() -> None:
    """Add the recipes of ``data/sampled/*.yaml`` (kind ``"sampled"``)."""
    for name, r in sampled.recipes().items():
        if name in DATASETS and DATASETS[name].kind != "sampled":
            raise InvalidDataFileError(f"{r.file}: dataset name {name!r} is already registered")
        parent = DATASETS.get(r.parent)
        if parent is None:
            raise InvalidDataFileError(f"{r.file}: datasets.{name}.parent {r.parent!r} is not a registered dataset")
        if parent.kind == "family":
            raise InvalidDataFileError(f"{r.file}: datasets.{name}.parent {r.parent!r} is a family of per-run "
                                       f"instances, not one matrix; name a single matrix as parent")
        if r.K > parent.K:
            raise InvalidDataFileError(f"{r.file}: datasets.{name}.K = {r.K} exceeds the parent's {parent.K} arms")
        desc = r.description or f"random {r.K}-arm submatrix of {r.parent}"
        DATASETS[name] = DatasetInfo(name, desc, r.K, r.origin or r.file, parent.needs_mslr, "sampled")


_register_generated()  # before the sampled recipes, which may name a generated parent
_register_sampled()


def list_datasets(*, needs_mslr: bool | None = None) -> list[str]:
    """Registered dataset names (registry order); filter with ``needs_mslr=True/False``."""
    return [n for n, d in DATASETS.items() if needs_mslr is None or d.needs_mslr == needs_mslr]


def dataset_info(name: str) -> DatasetInfo:
    """The registry entry of ``name``; unknown names raise :class:`UnknownDatasetError` listing the valid ones.

    An instance name ``"<family>.run<r>"`` gets an entry of kind ``"instance"`` (built on request).
    """
    try:
        return DATASETS[name]
    except (KeyError, TypeError):
        pass
    split = _split_instance(name)
    if split is not None:
        family, run = split
        info = DATASETS[family]
        return DatasetInfo(name, f"run {run}'s instance of the family {family}: {info.description}", info.K,
                           info.origin, False, "instance")
    raise UnknownDatasetError(f"unknown dataset {name!r}; valid names: {', '.join(DATASETS)} "
                              f"(and '<family>.run<r>' for run r's instance of a family)") from None


def _split_instance(name) -> tuple[str, int] | None:
    """``(family, r)`` if ``name`` is ``"<family>.run<r>"`` (``r`` written without leading zeros) of a
    registered family, else None."""
    if not isinstance(name, str):
        return None
    family, sep, run = name.rpartition(generated.INSTANCE_SEPARATOR)
    if not sep or not run.isdecimal() or not run.isascii() or instance_name(family, int(run)) != name:
        return None
    return (family, int(run)) if is_family(family) else None


def is_family(name: str) -> bool:
    """Whether ``name`` is a registered family of per-run instances (kind ``"family"``)."""
    info = DATASETS.get(name) if isinstance(name, str) else None
    return info is not None and info.kind == "family"


def load_instance(family: str, run: int):
    """Run ``run``'s instance of the family ``family`` (a :class:`PreferenceMatrix` named
    ``"<family>.run<run>"``; cached).  Instance r is the same for every algorithm and every
    process: the family's generator called with ``rng=SeedSequence([per_run_seed, r])``
    (:func:`duelbench.data.generated.load_instance`).

    Raises
    ------
    UnknownDatasetError
        ``family`` is not registered.
    ValueError
        ``family`` is registered but not a family, or ``run`` is not a non-negative integer.
    """
    info = dataset_info(family)
    if info.kind != "family":
        raise ValueError(f"dataset {family!r} (kind {info.kind!r}) is not a family of per-run instances; "
                         f"load it with load_matrix({family!r})")
    return generated.load_instance(family, run)


def required_files(name: str, data_root=None) -> list[Path]:
    """Files that must exist before ``name`` can be loaded without network or mirror access.

    Empty for the printed matrices (they are part of the checkout).  For MSLR
    datasets, the installed ``.npz`` path: ``<data_root>/mslr/<file>`` if
    ``data_root`` is given, else the default MSLR folder, relative to the
    current directory when it lies below it (as Snakemake expects).
    """
    info = dataset_info(name)
    if info.kind in ("printed", "generated", "family", "instance"):
        return []
    if info.kind == "sampled":
        return required_files(sampled.recipes()[name].parent, data_root)
    parent = _submatrix_parent(name) if info.kind == "submatrix" else name
    f = mslr.resolve(parent)
    if data_root is not None:
        return [Path(data_root) / "mslr" / f.filename]
    return [Path(display_path(mslr.local_path(parent)))]


def _submatrix_parent(name: str) -> str:
    doc = paper_matrices.read_provenance(name)
    parent = doc.get("parent")
    if parent not in mslr.MSLR_FILES:
        raise InvalidDataFileError(
            f"{paper_matrices.provenance_path(name)}: key 'parent' must be one of {list(mslr.MSLR_FILES)}, got {parent!r}."
        )
    return parent


@functools.lru_cache(maxsize=None)
def load_matrix(name: str):
    """Load a registered dataset as a :class:`~duelbench.problems.matrix.PreferenceMatrix`.

    The result's ``.name`` is ``name``; it is validated (square, entries in
    [0, 1], diagonal 1/2, ``p_ij + p_ji = 1`` within 1e-9) with ``source`` set
    to the file it came from (the full-precision 5-arm MSLR matrices are
    re-indexings of the validated 136x136 matrix, bitwise equal to its
    entries; their arm names are ``"ranker<i>"``, ``i`` the 0-based index).  Results are cached per process (the matrices
    are immutable).  The ArXiv matrix emits a ``TiedPairWarning`` (its
    printed tie is kept).

    MSLR datasets are taken from the local data folder, fetched from
    ``$DUELBENCH_DATA_MIRROR`` or downloaded if missing (see
    :func:`duelbench.data.mslr.ensure`); if that is impossible a
    :class:`~duelbench.data.errors.DataUnavailableError` says how to provide
    the file.

    An instance name ``"<family>.run<r>"`` loads run ``r``'s instance of a family
    (:func:`load_instance`).

    Raises
    ------
    UnknownDatasetError
        ``name`` is not registered (the message lists the valid names).
    FamilyDatasetError
        ``name`` is a family of per-run instances (the message names :func:`load_instance`).
    """
    from duelbench.problems.matrix import PreferenceMatrix

    info = dataset_info(name)
    if info.kind == "family":
        raise FamilyDatasetError(
            f"dataset {name!r} is a family of per-run instances (run r of every algorithm sees its own "
            f"matrix), not one matrix: load run r's instance with duelbench.data.registry.load_instance({name!r}, r) "
            f"or load_matrix('{name}.run<r>'), and simulate the family with "
            f"duelbench.engine.families.simulate_family")
    if info.kind == "instance":
        return load_instance(*_split_instance(name))
    if info.kind == "printed":
        pm = paper_matrices.read_printed(name)
        return PreferenceMatrix(pm.values, names=pm.arm_names, name=name, source=display_path(pm.csv_path))
    if info.kind == "mslr":
        return mslr.load(name)
    if info.kind == "sampled":
        return sampled.load_sampled(name)
    if info.kind == "generated":
        return generated.load_generated(name)
    # full-precision submatrix of an MSLR matrix
    doc = paper_matrices.read_provenance(name)
    ypath = paper_matrices.provenance_path(name)
    parent = _submatrix_parent(name)
    idx = doc.get("ranker_indices")
    if not (isinstance(idx, list) and len(idx) == info.K and all(isinstance(i, int) for i in idx)):
        raise InvalidDataFileError(f"{ypath}: ranker_indices must be a list of {info.K} integers (0-based), got {idx!r}.")
    full = load_matrix(parent)
    if not all(0 <= i < full.K for i in idx) or len(set(idx)) != len(idx):
        raise InvalidDataFileError(f"{ypath}: ranker_indices {idx} must be distinct integers in [0, {full.K - 1}].")
    # a plain re-indexing of the validated parent: entries are bitwise the parent's, and the arm
    # names are the parent's ("ranker<i>", i = 0-based row of the MSLR file)
    return full.submatrix(idx, name=name)


def clear_cache() -> None:
    """Forget cached matrices (e.g. after replacing a data file in a long-running process)."""
    load_matrix.cache_clear()
    sampled._draw.cache_clear()
    generated.load_generated.cache_clear()
    generated._instance.cache_clear()
