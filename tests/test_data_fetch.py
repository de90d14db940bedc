"""Fetching the MSLR files: local HTTP server, mirror folder, checksum and network failures.

A small valid ``.npz`` (an antisymmetric 136x136 matrix) is served from a temporary folder by
``http.server`` on 127.0.0.1; its SHA-256 replaces the pinned one through a monkeypatched
checksum table.  Tests with the real files use the MSLR mirror (fixture ``mslr_mirror``).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import http.server
import io
import os
import socket
import threading
from pathlib import Path

import numpy as np
import pytest

from duelbench.data import mslr
from duelbench.data.errors import ChecksumMismatchError, DataUnavailableError, InvalidDataFileError, UnknownDatasetError

NAME = "mslr_informational"
FILE = "MSLR_Informational_PMat.npz"


# --------------------------------------------------------------------------- helpers / fixtures
def _valid_npz_bytes(seed: int = 0, key: str = "PMat", n: int = 136) -> bytes:
    rng = np.random.default_rng(seed)
    U = rng.uniform(0.05, 0.95, size=(n, n))
    P = np.triu(U, 1) + np.tril(1.0 - U.T, -1)
    np.fill_diagonal(P, 0.5)
    buf = io.BytesIO()
    np.savez(buf, **{key: P})
    return buf.getvalue()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path):
    """No mirror from the environment, no proxies for 127.0.0.1, data dir in a temp folder."""
    monkeypatch.delenv(mslr.ENV_MIRROR, raising=False)
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("DUELBENCH_DATA_DIR", str(tmp_path / "datadir"))


@pytest.fixture
def served(tmp_path):
    """A folder served over HTTP on 127.0.0.1; yields (folder, base URL)."""
    folder = tmp_path / "served"
    folder.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield folder, f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def small_file(monkeypatch):
    """The bytes of a small valid npz, pinned in the checksum table in place of the real hash."""
    data = _valid_npz_bytes()
    info = mslr.MSLR_FILES[NAME]
    monkeypatch.setitem(mslr.MSLR_FILES, NAME, dataclasses.replace(info, sha256=hashlib.sha256(data).hexdigest()))
    return data


@pytest.fixture
def closed_port_url():
    """A URL on 127.0.0.1 whose port has no listener (connection refused)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}/"


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


# --------------------------------------------------------------------------- download
def test_download_success(served, small_file, tmp_path):
    folder, url = served
    (folder / FILE).write_bytes(small_file)
    dest = tmp_path / "dest"
    got = mslr.fetch(NAME, dest, url_base=url, timeout=10)
    assert got == dest / FILE
    assert got.read_bytes() == small_file
    assert _leftovers(dest) == [FILE]  # no temporary file left behind
    # a second call finds the verified file and does not need the network
    (folder / FILE).unlink()
    assert mslr.fetch(NAME, dest, url_base=url, timeout=10) == got
    # and the loader validates it as a preference matrix
    m = mslr.load(NAME, dest)
    assert m.K == 136 and m.name == NAME and np.all(m.values + m.values.T == 1.0)


def test_download_to_explicit_file_path(served, small_file, tmp_path):
    """A destination ending in .npz is the file path itself (Snakemake output style)."""
    folder, url = served
    (folder / FILE).write_bytes(small_file)
    out = tmp_path / "x" / "mslr" / FILE
    assert mslr.fetch(FILE, out, url_base=url, timeout=10) == out  # upstream file name accepted
    assert out.read_bytes() == small_file


def test_checksum_mismatch_leaves_nothing(served, small_file, tmp_path):
    folder, url = served
    (folder / FILE).write_bytes(_valid_npz_bytes(seed=1))  # a different file under the same name
    dest = tmp_path / "dest"
    with pytest.raises(ChecksumMismatchError) as ei:
        mslr.fetch(NAME, dest, url_base=url, timeout=10)
    msg = str(ei.value)
    assert FILE in msg
    assert mslr.MSLR_FILES[NAME].sha256 in msg  # expected
    assert hashlib.sha256((folder / FILE).read_bytes()).hexdigest() in msg  # actual
    assert "Fix:" in msg and "fetch-data" in msg
    assert _leftovers(dest) == []


def test_http_404_is_unavailable(served, small_file, tmp_path):
    _, url = served
    dest = tmp_path / "dest"
    with pytest.raises(DataUnavailableError, match="HTTP 404"):
        mslr.fetch(NAME, dest, url_base=url, timeout=10)
    assert _leftovers(dest) == []


def test_unreachable_host_gives_instructions(closed_port_url, tmp_path):
    dest = tmp_path / "dest"
    with pytest.raises(DataUnavailableError) as ei:
        mslr.fetch(NAME, dest, url_base=closed_port_url, timeout=5)
    msg = str(ei.value)
    assert FILE in msg and closed_port_url in msg
    assert f"{mslr.ENV_MIRROR}=" in msg  # 1. mirror
    assert str(dest / FILE) in msg  # 2. where to place the file
    assert f"duelbench fetch-data {NAME}" in msg  # 3. the fetch command
    assert mslr.MSLR_FILES[NAME].sha256 in msg
    assert _leftovers(dest) == []


def test_ensure_default_destination_and_error(closed_port_url, tmp_path):
    """ensure() uses <DUELBENCH_DATA_DIR>/mslr and says so when the file cannot be obtained."""
    with pytest.raises(DataUnavailableError) as ei:
        mslr.ensure(NAME, url_base=closed_port_url, timeout=5)
    assert str(tmp_path / "datadir" / "mslr" / FILE) in str(ei.value)
    assert mslr.local_path(NAME) == tmp_path / "datadir" / "mslr" / FILE


def test_corrupt_local_file_is_replaced(served, small_file, tmp_path):
    folder, url = served
    (folder / FILE).write_bytes(small_file)
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / FILE).write_bytes(b"not the file")
    with pytest.warns(RuntimeWarning, match="obtaining a fresh copy"):
        got = mslr.ensure(NAME, dest, url_base=url, timeout=10)
    assert got.read_bytes() == small_file


# --------------------------------------------------------------------------- mirror
def test_mirror_copy(small_file, tmp_path, closed_port_url):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / FILE).write_bytes(small_file)
    dest = tmp_path / "dest"
    got = mslr.fetch(NAME, dest, mirror=mirror, url_base=closed_port_url, timeout=5)
    assert got.read_bytes() == small_file and _leftovers(dest) == [FILE]


def test_mirror_from_environment(small_file, tmp_path, closed_port_url, monkeypatch):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / FILE).write_bytes(small_file)
    monkeypatch.setenv(mslr.ENV_MIRROR, str(mirror))
    got = mslr.ensure(NAME, url_base=closed_port_url, timeout=5)  # default destination
    assert got == tmp_path / "datadir" / "mslr" / FILE and got.read_bytes() == small_file


def test_mirror_with_wrong_file(small_file, tmp_path, closed_port_url):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / FILE).write_bytes(_valid_npz_bytes(seed=2))
    dest = tmp_path / "dest"
    with pytest.raises(ChecksumMismatchError, match=r"mirror file .*MSLR_Informational_PMat\.npz"):
        mslr.fetch(NAME, dest, mirror=mirror, url_base=closed_port_url, timeout=5)
    assert _leftovers(dest) == []


def test_mirror_without_the_file_falls_back_to_download(served, small_file, tmp_path):
    folder, url = served
    (folder / FILE).write_bytes(small_file)
    empty_mirror = tmp_path / "empty"
    empty_mirror.mkdir()
    got = mslr.fetch(NAME, tmp_path / "dest", mirror=empty_mirror, url_base=url, timeout=10)
    assert got.read_bytes() == small_file


def test_neither_mirror_nor_network(tmp_path, closed_port_url):
    empty_mirror = tmp_path / "empty"
    empty_mirror.mkdir()
    with pytest.raises(DataUnavailableError) as ei:
        mslr.fetch(NAME, tmp_path / "dest", mirror=empty_mirror, url_base=closed_port_url, timeout=5)
    msg = str(ei.value)
    assert f"mirror folder {empty_mirror}" in msg and "not found there" in msg


# --------------------------------------------------------------------------- file content
def test_npz_without_pmat_key(served, monkeypatch, tmp_path):
    data = _valid_npz_bytes(key="Other")
    info = mslr.MSLR_FILES[NAME]
    monkeypatch.setitem(mslr.MSLR_FILES, NAME, dataclasses.replace(info, sha256=hashlib.sha256(data).hexdigest()))
    folder, url = served
    (folder / FILE).write_bytes(data)
    with pytest.raises(InvalidDataFileError, match=r"MSLR_Informational_PMat\.npz: no array 'PMat'.*Fix:"):
        mslr.load_pmat(NAME, tmp_path / "dest", url_base=url, timeout=10)


def test_npz_with_wrong_shape(served, monkeypatch, tmp_path):
    data = _valid_npz_bytes(n=5)
    info = mslr.MSLR_FILES[NAME]
    monkeypatch.setitem(mslr.MSLR_FILES, NAME, dataclasses.replace(info, sha256=hashlib.sha256(data).hexdigest()))
    folder, url = served
    (folder / FILE).write_bytes(data)
    with pytest.raises(InvalidDataFileError, match=r"shape \(5, 5\), expected \(136, 136\)"):
        mslr.load_pmat(NAME, tmp_path / "dest", url_base=url, timeout=10)


def test_unknown_name():
    with pytest.raises(UnknownDatasetError, match="mslr_informational, mslr_navigational, mslr_perfect"):
        mslr.fetch("mslr_foo")


def test_table_urls():
    for info in mslr.MSLR_FILES.values():
        assert info.url == (
            "https://raw.githubusercontent.com/nightingal3/duelling-bandits/"
            f"cd17008ba0241c74100db965d34a87e1622c4a57/data/{info.filename}"
        )
        assert len(info.sha256) == 64


def test_name_aliases():
    assert mslr.resolve("informational").name == NAME
    assert mslr.resolve(FILE).name == NAME
    assert mslr.resolve("MSLR_PERFECT").name == "mslr_perfect"


# --------------------------------------------------------------------------- command line
def test_main_fetch_success(served, small_file, tmp_path, capsys):
    folder, url = served
    (folder / FILE).write_bytes(small_file)
    dest = tmp_path / "dest"
    rc = mslr.main_fetch([NAME, "--dest", str(dest), "--url-base", url, "--timeout", "10"])
    assert rc == 0
    assert (dest / FILE).read_bytes() == small_file
    assert NAME in capsys.readouterr().out


def test_main_fetch_failure_and_usage(tmp_path, closed_port_url, capsys):
    rc = mslr.main_fetch([NAME, "--dest", str(tmp_path), "--url-base", closed_port_url, "--timeout", "5"])
    assert rc == 1
    err = capsys.readouterr().err
    assert "not available" in err and mslr.ENV_MIRROR in err
    assert mslr.main_fetch(["nonsense"]) == 2
    assert mslr.main_fetch(["all", "--dest", str(tmp_path / "a.npz")]) == 2
    assert mslr.main_fetch(["--list"]) == 0
    assert mslr.MSLR_FILES[NAME].sha256 in capsys.readouterr().out


# --------------------------------------------------------------------------- the real files
def test_real_files_from_the_mirror(mslr_mirror, tmp_path, closed_port_url):
    dest = tmp_path / "dest"
    for name, info in mslr.MSLR_FILES.items():
        got = mslr.fetch(name, dest, mirror=mslr_mirror, url_base=closed_port_url, timeout=5)
        assert mslr.sha256_file(got) == info.sha256
    assert _leftovers(dest) == sorted(i.filename for i in mslr.MSLR_FILES.values())


def test_real_file_over_http(mslr_mirror, served, tmp_path):
    folder, url = served
    info = mslr.MSLR_FILES["mslr_perfect"]
    (folder / info.filename).write_bytes((mslr_mirror / info.filename).read_bytes())
    got = mslr.fetch("mslr_perfect", tmp_path / "dest", url_base=url, timeout=10)
    assert mslr.sha256_file(got) == info.sha256


def test_main_fetch_all_from_mirror(mslr_mirror, tmp_path, closed_port_url):
    dest = tmp_path / "dest"
    rc = mslr.main_fetch(["--dest", str(dest), "--mirror", str(mslr_mirror), "--url-base", closed_port_url])
    assert rc == 0
    assert sorted(os.listdir(dest)) == sorted(i.filename for i in mslr.MSLR_FILES.values())


def test_relative_mirror_in_environment_is_resolved_against_the_checkout(small_file, tmp_path, monkeypatch, closed_port_url):
    """CI sets DUELBENCH_DATA_MIRROR relative to the checkout; it must work from another directory."""
    root = tmp_path / "checkout"
    (root / "data" / "matrices").mkdir(parents=True)
    (root / "pyproject.toml").write_text("")
    (root / "mirror").mkdir()
    (root / "mirror" / FILE).write_bytes(small_file)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("DUELBENCH_ROOT", str(root))
    monkeypatch.setenv(mslr.ENV_MIRROR, "mirror")
    monkeypatch.chdir(elsewhere)
    got = mslr.fetch(NAME, tmp_path / "dest", url_base=closed_port_url, timeout=5)
    assert got.read_bytes() == small_file
