"""The 136x136 MSLR feature-ranker preference matrices: fetch, verify, load.

Zoghi, Karnin, Whiteson & de Rijke (NIPS 2015, paper 001, Appendix B, lines
412-418) estimate ``p_ij`` for the 136 rankers of the MSLR learning-to-rank
data (one ranker per ranking feature) from 400,000 probabilistic-interleave
comparisons per pair, with simulated clicks.  With the *informational* click
model the matrix has no Condorcet winner; with the *perfect* and
*navigational* models it has one (line 416).  Komiyama et al. (ICML 2016,
paper 000, line 295) sample their MSLR submatrices from the informational
matrix.  The papers do not print these matrices.

The files used here are a public third-party copy (see :data:`UPSTREAM`): NumPy
``.npz`` archives holding one float64 array ``PMat`` of shape (136, 136).
They are never committed to the repository.  :func:`fetch` obtains a file

1. by copying it from a *mirror folder* (argument ``mirror``, else the
   environment variable ``DUELBENCH_DATA_MIRROR``), or
2. by downloading it from the pinned public URL (``url_base`` + file name),

verifies its SHA-256 against :data:`MSLR_FILES` and installs it atomically
(temporary file in the destination folder, then ``os.replace``): on any
error nothing is left at the destination.  The default destination is
``data/mslr/`` of the checkout (see :mod:`duelbench.data.paths`).

Command line (wired to ``duelbench fetch-data``)::

    duelbench fetch-data mslr_informational --dest data/mslr
    python -m duelbench.data.mslr all --mirror /path/to/mirror
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
import urllib.error
import urllib.request
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Sequence

import numpy as np

from .errors import ChecksumMismatchError, DataError, DataUnavailableError, InvalidDataFileError, UnknownDatasetError
from .paths import display_path, mslr_dir

__all__ = [
    "MSLRFile",
    "MSLR_FILES",
    "UPSTREAM",
    "DEFAULT_URL_BASE",
    "ENV_MIRROR",
    "DEFAULT_TIMEOUT",
    "N_RANKERS",
    "resolve",
    "local_path",
    "sha256_file",
    "fetch",
    "ensure",
    "load_pmat",
    "load",
    "main_fetch",
]

ENV_MIRROR = "DUELBENCH_DATA_MIRROR"
DEFAULT_TIMEOUT = 60.0
N_RANKERS = 136
ARRAY_KEY = "PMat"

UPSTREAM = {
    "repository": "https://github.com/nightingal3/duelling-bandits",
    "licence": "MIT",
    "commit": "cd17008ba0241c74100db965d34a87e1622c4a57",
    "folder": "data/",
    "note": 'a code comment there says the data were "provided by Zoghi, Karnin, Whiteson and Rijke"',
}
DEFAULT_URL_BASE = (
    "https://raw.githubusercontent.com/nightingal3/duelling-bandits/cd17008ba0241c74100db965d34a87e1622c4a57/data/"
)

_CHUNK = 1 << 16


@dataclass(frozen=True)
class MSLRFile:
    """One pinned MSLR data file."""

    name: str  # registry name, e.g. "mslr_informational"
    filename: str  # upstream file name
    click_model: str  # "informational", "navigational" or "perfect"
    sha256: str  # hex digest of the exact file bytes
    description: str

    @property
    def url(self) -> str:
        """Public download URL (pinned commit of the upstream repository)."""
        return DEFAULT_URL_BASE + self.filename


MSLR_FILES: dict[str, MSLRFile] = {
    "mslr_informational": MSLRFile(
        "mslr_informational",
        "MSLR_Informational_PMat.npz",
        "informational",
        "ef05eca2b7b27f63faaa292b0e88b17311560bf76124693354d953c702b7e9da",
        "MSLR 136 feature rankers, informational click model: no Condorcet winner "
        "(Zoghi et al. 2015, App. B, lines 416-418; Komiyama et al. 2016, line 295)",
    ),
    "mslr_navigational": MSLRFile(
        "mslr_navigational",
        "MSLR_Navigational_PMat.npz",
        "navigational",
        "302f4d88cba0bcace47a0e7a6e5bebdd8961b2ad912db9b682b3f2a9a05c3a94",
        "MSLR 136 feature rankers, navigational click model: has a Condorcet winner (Zoghi et al. 2015, line 416)",
    ),
    "mslr_perfect": MSLRFile(
        "mslr_perfect",
        "MSLR_Perfect_PMat.npz",
        "perfect",
        "5a8ea50334af26d1efc7c2a9731dc9336d96dbbc3ec8d741509e25b3324b55a5",
        "MSLR 136 feature rankers, perfect click model: has a Condorcet winner (Zoghi et al. 2015, line 416)",
    ),
}


def resolve(name: str) -> MSLRFile:
    """Look up a file by registry name, upstream file name or click model (case-insensitive)."""
    key = str(name).strip().lower()
    for info in MSLR_FILES.values():
        if key in (info.name, info.filename.lower(), info.click_model):
            return info
    valid = ", ".join(MSLR_FILES)
    raise UnknownDatasetError(f"unknown MSLR file {name!r}; valid names: {valid} (or their file names / click models)")


def _target_path(info: MSLRFile, dest_dir) -> Path:
    if dest_dir is None:
        return mslr_dir() / info.filename
    dest = Path(dest_dir).expanduser()
    if dest.suffix == ".npz":  # a file path, e.g. a Snakemake output
        return dest
    return dest / info.filename


def local_path(name: str, dest_dir=None) -> Path:
    """Where :func:`fetch`/:func:`ensure` put (and look for) the file.

    ``dest_dir`` is a folder (default ``data/mslr`` of the checkout, or
    ``$DUELBENCH_DATA_DIR/mslr``) or a full path ending in ``.npz``.
    """
    return _target_path(resolve(name), dest_dir)


def sha256_file(path) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def _url(info: MSLRFile, url_base: str | None) -> str:
    base = url_base if url_base is not None else DEFAULT_URL_BASE
    return base.rstrip("/") + "/" + info.filename


def _mirror_dir(mirror) -> Path | None:
    """The mirror folder: the argument, else ``$DUELBENCH_DATA_MIRROR``.

    A relative path in the environment variable is taken relative to the
    current directory, or, if it names no folder there, relative to the
    checkout root (CI sets ``DUELBENCH_DATA_MIRROR=../shared/data/mslr``
    relative to the checkout).
    """
    if mirror is not None:
        return Path(mirror).expanduser()
    env = os.environ.get(ENV_MIRROR, "").strip()
    if not env:
        return None
    path = Path(env).expanduser()
    if not path.is_absolute() and not path.is_dir():
        from .paths import project_root

        alt = project_root() / path
        if alt.is_dir():
            return alt
    return path


def _how_to_fix(info: MSLRFile, target: Path) -> str:
    return (
        "Provide the file in one of these ways:\n"
        f"  1. set {ENV_MIRROR}=<folder containing {info.filename}> (it is copied and checked on first use);\n"
        f"  2. place the file at {target} (SHA-256 {info.sha256});\n"
        f"  3. with network access, run: duelbench fetch-data {info.name} --dest {target.parent}\n"
        f"     (equivalently: python -m duelbench.data.mslr {info.name} --dest {target.parent}).\n"
        f"Public source: {DEFAULT_URL_BASE}{info.filename} "
        f"(repository {UPSTREAM['repository']}, commit {UPSTREAM['commit']})."
    )


def _install(stream: BinaryIO, info: MSLRFile, target: Path, origin: str, url_hint: str) -> Path:
    """Copy ``stream`` to a temporary file next to ``target``, verify SHA-256, rename.

    On any failure the temporary file is removed and ``target`` is untouched.
    """
    def _write_error(exc: OSError) -> DataError:
        return DataError(
            f"cannot write {info.filename} into {target.parent}: {exc}. "
            "Fix: make the destination folder writable (and check free space), or choose another one with --dest."
        )

    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{info.filename}.", suffix=".part", dir=target.parent)
    except OSError as exc:
        raise _write_error(exc) from None
    tmp = Path(tmp_name)
    try:
        h = hashlib.sha256()
        nbytes = 0
        with os.fdopen(fd, "wb") as out:
            while True:
                chunk = stream.read(_CHUNK)  # network/read errors propagate unchanged
                if not chunk:
                    break
                try:
                    out.write(chunk)
                except OSError as exc:
                    raise _write_error(exc) from None
                h.update(chunk)
                nbytes += len(chunk)
            out.flush()
            os.fsync(out.fileno())
        actual = h.hexdigest()
        if actual != info.sha256:
            raise ChecksumMismatchError(
                f"SHA-256 mismatch for {info.filename} from {origin}:\n"
                f"  expected {info.sha256}\n"
                f"  actual   {actual} ({nbytes} bytes)\n"
                f"Nothing was written to {target}. The source is corrupt, truncated or a different version. "
                f"Fix: replace it with the original file (public source: {url_hint}) and retry, e.g. "
                f"`duelbench fetch-data {info.name} --dest {target.parent}`."
            )
        try:
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        except OSError as exc:
            raise _write_error(exc) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


def _obtain(info: MSLRFile, target: Path, mirror, url_base, timeout: float, tried: list[str]) -> Path:
    """Mirror copy, else download; raise DataUnavailableError listing ``tried``."""
    url = _url(info, url_base)
    mdir = _mirror_dir(mirror)
    if mdir is not None:
        src = mdir / info.filename
        if src.is_file():
            with open(src, "rb") as fh:
                return _install(fh, info, target, f"mirror file {src}", DEFAULT_URL_BASE + info.filename)
        where = "argument mirror" if mirror is not None else f"{ENV_MIRROR}"
        tried.append(f"mirror folder {mdir} ({where}): {info.filename} not found there")
    else:
        tried.append(f"mirror folder: none given ({ENV_MIRROR} is not set)")
    req = urllib.request.Request(url, headers={"User-Agent": "duelbench-fetch-data"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return _install(resp, info, target, f"download {url}", url)
    except urllib.error.HTTPError as exc:
        tried.append(f"download {url}: HTTP {exc.code} {exc.reason}")
    except urllib.error.URLError as exc:
        tried.append(f"download {url}: {exc.reason}")
    except (TimeoutError, ConnectionError, OSError) as exc:
        # OSError also covers http.client errors raised as OSError subclasses
        tried.append(f"download {url}: {type(exc).__name__}: {exc}")
    except Exception as exc:  # e.g. http.client.IncompleteRead, ValueError for a malformed URL
        if isinstance(exc, DataError):
            raise
        tried.append(f"download {url}: {type(exc).__name__}: {exc}")
    lines = "\n".join(f"  - {t}" for t in tried)
    raise DataUnavailableError(
        f"MSLR file {info.filename} (dataset {info.name!r}) is not available.\nTried:\n{lines}\n"
        + _how_to_fix(info, target)
    )


def fetch(
    name: str,
    dest_dir=None,
    *,
    mirror=None,
    url_base: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    force: bool = False,
) -> Path:
    """Obtain one MSLR file, verify its SHA-256 and install it atomically.

    Parameters
    ----------
    name : str
        ``"mslr_informational"``, ``"mslr_navigational"`` or ``"mslr_perfect"``
        (or the upstream file name, or the click model).
    dest_dir : path-like, optional
        Destination folder (default ``data/mslr`` of the checkout), or the full
        destination path if it ends in ``.npz`` (convenient for a Snakemake
        rule's output).
    mirror : path-like, optional
        Folder holding the ``.npz`` files; default ``$DUELBENCH_DATA_MIRROR``.
        If the file is there it is copied (and checked) and nothing is
        downloaded; if not, the download is tried.
    url_base : str, optional
        Base URL the file name is appended to (default :data:`DEFAULT_URL_BASE`).
    timeout : float
        Network timeout in seconds.
    force : bool
        Re-obtain the file even if a verified copy is already installed.

    Returns
    -------
    pathlib.Path
        The installed file.

    Raises
    ------
    ChecksumMismatchError
        The mirror copy or the download has the wrong SHA-256 (nothing installed).
    DataUnavailableError
        Neither the mirror nor the download worked; the message says how to
        provide the file.
    """
    info = resolve(name)
    target = _target_path(info, dest_dir)
    tried: list[str] = []
    if target.is_file() and not force:
        actual = sha256_file(target)
        if actual == info.sha256:
            return target
        tried.append(f"local file {target}: wrong SHA-256 {actual} (expected {info.sha256}); replacing it")
        warnings.warn(
            f"{target} has SHA-256 {actual}, expected {info.sha256}; obtaining a fresh copy", RuntimeWarning, stacklevel=2
        )
    elif not target.exists():
        tried.append(f"local file {target}: not present")
    return _obtain(info, target, mirror, url_base, float(timeout), tried)


def ensure(name: str, dest_dir=None, *, mirror=None, url_base: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> Path:
    """Path of a verified local copy of an MSLR file, fetching it if needed.

    Used by the loaders: returns at once if the installed file has the pinned
    SHA-256; otherwise behaves like :func:`fetch`.
    """
    return fetch(name, dest_dir, mirror=mirror, url_base=url_base, timeout=timeout, force=False)


def load_pmat(name: str, dest_dir=None, **fetch_kwargs) -> np.ndarray:
    """The raw ``PMat`` array (float64, 136 x 136) of an MSLR file (fetched if needed)."""
    info = resolve(name)
    path = ensure(info.name, dest_dir, **fetch_kwargs)
    return _read_npz(path, info)


def _read_npz(path: Path, info: MSLRFile) -> np.ndarray:
    fix = f"Fix: delete {path} and run `duelbench fetch-data {info.name}` to obtain the pinned file."
    try:
        with np.load(path, allow_pickle=False) as z:
            if ARRAY_KEY not in z.files:
                raise InvalidDataFileError(f"{path}: no array {ARRAY_KEY!r} in the archive (keys: {z.files}). {fix}")
            arr = np.asarray(z[ARRAY_KEY])
    except InvalidDataFileError:
        raise
    except Exception as exc:  # not an npz / pickled content / truncated
        raise InvalidDataFileError(f"{path}: cannot read as a NumPy .npz archive ({type(exc).__name__}: {exc}). {fix}") from None
    if arr.shape != (N_RANKERS, N_RANKERS):
        raise InvalidDataFileError(f"{path}: {ARRAY_KEY!r} has shape {arr.shape}, expected ({N_RANKERS}, {N_RANKERS}). {fix}")
    if not np.issubdtype(arr.dtype, np.floating):
        raise InvalidDataFileError(f"{path}: {ARRAY_KEY!r} has dtype {arr.dtype}, expected a float array. {fix}")
    return arr.astype(np.float64, copy=False)


def load(name: str, dest_dir=None, **fetch_kwargs):
    """The MSLR matrix as a validated :class:`~duelbench.problems.matrix.PreferenceMatrix`.

    Its ``name`` is the registry name (e.g. ``"mslr_informational"``), its
    ``source`` the local file path; arm names are ``"ranker0"`` ..
    ``"ranker135"`` (``"ranker<i>"`` is row/column ``i``, 0-based, of the file).
    """
    from duelbench.problems.matrix import PreferenceMatrix

    info = resolve(name)
    path = ensure(info.name, dest_dir, **fetch_kwargs)
    arr = _read_npz(path, info)
    names = [f"ranker{i}" for i in range(arr.shape[0])]
    return PreferenceMatrix(arr, names=names, name=info.name, source=f"{path} [{ARRAY_KEY}]")


# --------------------------------------------------------------------------- command line
def _parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description=(
            "Fetch the 136x136 MSLR preference matrices (copy from a mirror folder or download), "
            "verify their SHA-256 and install them atomically."
        ),
        epilog=f"Mirror folder default: ${ENV_MIRROR}. Default destination: {display_path(mslr_dir())}.",
    )
    p.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"dataset(s) to fetch: {', '.join(MSLR_FILES)}, or 'all' (default: all)",
    )
    p.add_argument("--dest", default=None, help="destination folder (or a .npz path when fetching one file)")
    p.add_argument("--mirror", default=None, help=f"folder holding the .npz files (default: ${ENV_MIRROR})")
    p.add_argument("--url-base", default=None, help=f"base URL (default: {DEFAULT_URL_BASE})")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="network timeout in seconds (default: %(default)s)")
    p.add_argument("--force", action="store_true", help="re-obtain files even if a verified copy exists")
    p.add_argument("--list", action="store_true", help="list the known files with SHA-256 and exit")
    return p


def main_fetch(argv: Sequence[str] | None = None, prog: str = "duelbench fetch-data") -> int:
    """Command-line entry point; returns the exit status (0 success, 1 data error, 2 usage error)."""
    parser = _parser(prog)
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.list:
        for info in MSLR_FILES.values():
            print(f"{info.name}\t{info.filename}\t{info.click_model}\t{info.sha256}")
        return 0
    names = args.names or ["all"]
    try:
        infos = list(MSLR_FILES.values()) if "all" in names else [resolve(n) for n in names]
    except UnknownDatasetError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    if args.dest is not None and Path(args.dest).suffix == ".npz" and len(infos) != 1:
        print(f"{prog}: error: --dest {args.dest} is a file path; fetch one dataset at a time with it", file=sys.stderr)
        return 2
    status = 0
    for info in infos:
        try:
            path = fetch(info.name, args.dest, mirror=args.mirror, url_base=args.url_base, timeout=args.timeout, force=args.force)
        except DataError as exc:
            print(f"{prog}: error: {exc}", file=sys.stderr)
            status = 1
            continue
        print(f"{info.name}: {display_path(path)} (sha256 {info.sha256[:16]}... verified)")
    return status


if __name__ == "__main__":  # python -m duelbench.data.mslr ...
    sys.exit(main_fetch(prog="python -m duelbench.data.mslr"))
