"""Reading files from an untrusted workspace (pallas_lsp.files and every reader built on it):
regular files only, the size limit applied before reading, nothing blocks, one bad entry never
loses the rest; and Python source decoded as CPython decodes it.

A FIFO blocks a plain ``open()`` until a writer comes, so each test that touches one runs under
a deadline (SIGALRM interrupts the blocked call): on code that blocks, the test fails in
seconds instead of hanging.
"""
from __future__ import annotations

import contextlib
import os
import signal
import time

import pytest

from pallas_lsp.files import (FileReadError, SourceDecodeError, decode_source, read_regular_bytes,
                              read_regular_text)
from tests.conftest import CORPUS

KERNEL = (CORPUS / "get_global_interpret_true_basic.py").read_text()


@contextlib.contextmanager
def deadline(seconds: float = 10.0):
    def expired(signum, frame):
        raise TimeoutError(f"blocked for more than {seconds}s")

    old = signal.signal(signal.SIGALRM, expired)
    # Fires again every second after the deadline: code that swallows the first TimeoutError
    # (jedi catches OSError around its reads) and blocks again is cut again.
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@contextlib.contextmanager
def bounded_memory(extra_bytes: int = 1_500_000_000):
    """At most ``extra_bytes`` more address space for this process while the block runs: code
    that reads /dev/zero or a huge file whole gets a MemoryError instead of the machine's memory."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as f:
        in_use = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    limit = in_use + extra_bytes
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


# --- the reader ----------------------------------------------------------------------------------

def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "x.py"
    os.mkfifo(fifo)
    with deadline(5), pytest.raises(FileReadError) as info:
        read_regular_bytes(fifo, 1000)
    assert info.value.reason == "not a regular file (FIFO)" and info.value.path == str(fifo)


def test_devices_and_folders_are_refused(tmp_path):
    (tmp_path / "evil.py").symlink_to("/dev/zero")
    with deadline(5), bounded_memory(), pytest.raises(FileReadError, match=r"not a regular file \(character device\)"):
        read_regular_bytes(tmp_path / "evil.py", 10**9)
    with pytest.raises(FileReadError, match=r"not a regular file \(directory\)"):
        read_regular_bytes(tmp_path, 1000)


def test_symlink_loop_and_missing_file_have_plain_reasons(tmp_path):
    (tmp_path / "loop.py").symlink_to("loop.py")
    with pytest.raises(FileReadError) as info:
        read_regular_bytes(tmp_path / "loop.py", 1000)
    assert info.value.reason == "symlink loop"
    with pytest.raises(FileReadError, match="no such file"):
        read_regular_bytes(tmp_path / "nope.py", 1000)


def test_size_limit_applies_before_reading(tmp_path, monkeypatch):
    big = tmp_path / "big.py"
    with open(big, "wb") as f:  # sparse: 177 MB that cost no disk
        f.truncate(177_000_000)
    reads = []
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    with bounded_memory(), pytest.raises(FileReadError) as info:
        read_regular_bytes(big, 5_000_000)
    assert info.value.kind == "too-large" and "177000000 bytes" in info.value.reason
    assert reads == []  # not a byte read
    small = tmp_path / "small.py"
    small.write_bytes(b"x" * 100)
    assert read_regular_bytes(small, 100) == b"x" * 100
    with pytest.raises(FileReadError, match="larger than 99 bytes"):
        read_regular_bytes(small, 99)


def test_text_that_does_not_decode_is_a_read_error(tmp_path):
    p = tmp_path / "records.json"
    p.write_bytes(b'[\n"\xff"]')
    with pytest.raises(FileReadError, match=r"not valid utf-8 \(line 2\)"):
        read_regular_text(p, 1000)
    assert read_regular_text(p, 1000, errors="replace") == '[\n"\ufffd"]'


def test_read_error_survives_pickling():  # ``check -j`` workers
    import pickle

    err = pickle.loads(pickle.dumps(FileReadError("/w/x.py", "symlink loop")))
    assert (err.path, err.reason, err.kind) == ("/w/x.py", "symlink loop", "unreadable")
    dec = pickle.loads(pickle.dumps(SourceDecodeError("bad", 3)))
    assert (dec.message, dec.line) == ("bad", 3)


# --- decoding Python source as CPython does ------------------------------------------------------

def cpython_accepts(data: bytes) -> bool:
    try:
        compile(data, "<t>", "exec")
        return True
    except SyntaxError:
        return False


@pytest.mark.parametrize("data, text", [
    (b"x = 1\n", "x = 1\n"),
    (b"\xef\xbb\xbfx = 1\n", "x = 1\n"),  # the UTF-8 BOM is dropped
    (b"# -*- coding: latin-1 -*-\n\xe9t\xe9 = 1\n", "# -*- coding: latin-1 -*-\nété = 1\n"),
    (b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nq = '\x93'\n",
     "#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nq = '\u201c'\n"),
    (b"x = 1\r\ny = 2\r\n", "x = 1\r\ny = 2\r\n"),  # line endings kept as they are
])
def test_decodes_what_cpython_runs(data, text):
    assert cpython_accepts(data)
    assert decode_source(data) == text


@pytest.mark.parametrize("data, line, words", [
    ("x = 1\ny = 2\n".encode("utf-16"), 1, "UTF-16 byte order mark"),
    ("x = 1\n".encode("utf-32"), 1, "UTF-32 byte order mark"),
    (b"x = 1\ny = '\xe9'\n", 2, "Non-UTF-8 code starting with '\\xe9' on line 2, but no encoding declared"),
    (b"x = 1\r\n\r\ny = '\xe9'\n", 3, "on line 3"),  # \r counts as a line end, as in CPython and editors
    (b"# coding: utf-8\nx = '\xe9'\n", 2, "does not decode as utf-8"),
    (b"# coding: nope\nx = 1\n", 1, "unknown encoding: nope"),
    (b"# coding: utf-16\nx = 1\n", 1, "encoding problem: utf-16"),
    (b"\xef\xbb\xbf# coding: latin-1\nx = 1\n", 1, "UTF-8 byte order mark but declares another encoding"),
])
def test_refuses_what_cpython_refuses(data, line, words):
    assert not cpython_accepts(data)
    with pytest.raises(SourceDecodeError) as info:
        decode_source(data)
    assert info.value.line == line and words in info.value.message


# --- the readers built on it ---------------------------------------------------------------------

def test_fifo_pyproject_is_a_config_problem_not_a_freeze(tmp_path):
    from pallas_lsp.config import find_config

    os.mkfifo(tmp_path / "pyproject.toml")
    (tmp_path / "k.py").write_text(KERNEL)
    with deadline(10):
        cfg = find_config(tmp_path / "k.py")
    assert any("cannot read: not a regular file (FIFO)" in p for p in cfg.problems), cfg.problems


def test_fifo_records_file_named_by_pyproject_is_a_record_problem(tmp_path):
    from pallas_lsp.config import find_config
    from pallas_lsp.records import default_store

    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nrecords = ["extra.json"]\n')
    os.mkfifo(tmp_path / "extra.json")
    with deadline(10):
        cfg = find_config(tmp_path / "k.py")
        store = default_store()
        problems = [p for r in cfg.records for p in store.add_path(r)]
    assert [p.message for p in problems] == ["cannot read: not a regular file (FIFO)"], problems
    assert store.records  # the shipped records are all still there


def test_records_symlink_to_dev_zero_is_refused_unread(tmp_path):
    from pallas_lsp.records import load_records_file

    (tmp_path / "evil.json").symlink_to("/dev/zero")
    with deadline(10), bounded_memory():
        records, problems = load_records_file(tmp_path / "evil.json")
    assert records == [] and [p.message for p in problems] == ["cannot read: not a regular file (character device)"]


def venv_with_metadata(root):
    site = root / ".venv" / "lib" / "python3.11" / "site-packages"
    (site / "jax-0.4.30.dist-info").mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    return site / "jax-0.4.30.dist-info" / "METADATA"


def test_environment_metadata_fifo_or_device_never_blocks(tmp_path):
    from pallas_lsp.environment import _jax_version_at, workspace_jax_version

    meta = venv_with_metadata(tmp_path / "a")
    os.mkfifo(meta)
    with deadline(10):
        assert workspace_jax_version(None, tmp_path / "a") is None
    meta = venv_with_metadata(tmp_path / "b")
    meta.symlink_to("/dev/zero")
    with deadline(10), bounded_memory():
        assert workspace_jax_version(None, tmp_path / "b") is None
    meta = venv_with_metadata(tmp_path / "c")
    meta.write_text("Metadata-Version: 2.1\nName: jax\nVersion: 0.4.30\n")
    _jax_version_at.cache_clear()
    assert workspace_jax_version(None, tmp_path / "c") == "0.4.30"


def hostile_workspace(root):
    """A workspace with one good kernel and every entry that used to stall or stop a scan."""
    root.mkdir(exist_ok=True)
    (root / "good.py").write_text(KERNEL)
    (root / "user.py").write_text("from good import add_one\n")
    os.mkfifo(root / "x.py")
    (root / "evil.py").symlink_to("/dev/zero")
    (root / "loop.py").symlink_to("loop.py")
    with open(root / "big.py", "wb") as f:
        f.truncate(177_000_000)
    (root / "sub").mkdir()
    (root / "sub" / "inner.py").write_text("y = 1\n")
    (root / "locked").mkdir()
    (root / "locked" / "hidden.py").write_text("z = 1\n")
    return root


def fail_listing(monkeypatch, folder):
    """Tests run as root, and root lists a mode-000 folder anyway: make listing ``folder`` fail
    as it does for a normal user (PermissionError from os.scandir, which os.walk uses too)."""
    real = os.scandir
    target = os.fspath(folder)

    def scandir(path="."):
        if os.fspath(path) == target:
            raise PermissionError(13, "Permission denied", target)
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_walk_reports_unlistable_and_outside_folders_and_goes_on(tmp_path, monkeypatch):
    from pallas_lsp.analysis.program import walk_entries, walk_python_files

    ws = hostile_workspace(tmp_path / "ws")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "far.py").write_text("w = 1\n")
    (ws / "outside").symlink_to(tmp_path / "elsewhere")
    (ws / "inside").symlink_to(ws / "sub")  # reached by its real path; not reported
    fail_listing(monkeypatch, ws / "locked")
    with deadline(10):
        entries = [(os.path.relpath(p, ws), why) for p, why in walk_entries(ws)]
    assert entries == [
        ("big.py", None), ("evil.py", None), ("good.py", None), ("loop.py", None),
        ("outside", f"symlink to a folder ({tmp_path / 'elsewhere'}); symlinked folders are not followed"),
        ("user.py", None), ("x.py", None),
        ("locked", "cannot list this folder: permission denied"), (os.path.join("sub", "inner.py"), None)]
    assert [os.path.relpath(p, ws) for p in walk_python_files(ws)] == [
        "big.py", "evil.py", "good.py", "loop.py", "user.py", "x.py", os.path.join("sub", "inner.py")]


def test_workspace_program_skips_what_it_cannot_read(tmp_path, monkeypatch):
    """The server's workspace analysis: the FIFO, the device, the loop and the 177 MB file are
    skipped without blocking or reading them, the unlistable folder is skipped, and the cross-module
    result (``user.py`` imports the kernel) still comes."""
    from pallas_lsp.rules import default_engine
    from pallas_lsp.analysis.program import Program, read_file

    ws = hostile_workspace(tmp_path / "ws")
    fail_listing(monkeypatch, ws / "locked")
    real_read = os.read
    biggest = []
    monkeypatch.setattr(os, "read", lambda fd, n: biggest.append(n) or real_read(fd, n))
    program = Program(ws)
    start = time.monotonic()
    with deadline(30), bounded_memory():
        for name in ("x.py", "evil.py", "loop.py", "big.py"):
            assert read_file(str(ws / name)) is None
        result = default_engine().analyse_in(program, str(ws / "good.py"))
        importers = program.importers_of(str(ws / "good.py"))
    assert time.monotonic() - start < 30
    assert [f.code for f in result.findings] == ["PAL001"]
    assert importers == [str(ws / "user.py")]
    assert max(biggest) <= 5_000_001


def test_source_cache_sees_a_file_replaced_by_a_fifo(tmp_path):
    from pallas_lsp.analysis.program import read_file

    p = tmp_path / "m.py"
    p.write_text("x = 1\n")
    assert read_file(str(p)) == "x = 1\n"
    p.unlink()
    os.mkfifo(p)
    start = time.monotonic()
    with deadline(5):  # (a blocked read would be cut here, and read as unreadable: time it too)
        assert read_file(str(p)) is None
    assert time.monotonic() - start < 2


def test_jedi_reads_are_bounded_too(tmp_path):
    """Import resolution falls back to jedi, which reads files itself: a FIFO among a buildout
    project's ``bin/`` scripts blocked it for good, and a 177 MB module it followed was read and
    parsed whole (minutes). Both are refused now and the import is just not followed."""
    from pallas_lsp.rules import default_engine
    from pallas_lsp.analysis.program import Program

    ws = tmp_path / "ws"
    (ws / "bin").mkdir(parents=True)
    (ws / "buildout.cfg").write_text("[buildout]\n")
    os.mkfifo(ws / "bin" / "fifo")
    (ws / "bin" / "zero").symlink_to("/dev/zero")
    (ws / "bin" / "script").write_text("#!/usr/bin/python\nimport sys\n")
    (ws / "nothere").mkdir()  # a folder: the import is left to jedi
    with open(ws / "big.py", "wb") as f:
        f.truncate(177_000_000)
    (ws / "m.py").write_text("from nothere import a\nfrom big import b\n" + KERNEL)
    program = Program(ws)
    start = time.monotonic()
    with deadline(60), bounded_memory():
        result = default_engine().analyse_in(program, str(ws / "m.py"))
        # The analysis resolves an import only when it needs the name's value: ask for both
        # (`a` goes to jedi, among the FIFO and the /dev/zero link; `b` is found by path).
        index = program.index(str(ws / "m.py"))
        for name in ("a", "b"):
            binding = index.scope.bindings[name][-1]
            program.resolve_import(str(ws / "m.py"), binding.stmt, name, binding.scope)
    assert time.monotonic() - start < 30
    assert [f.code for f in result.findings] == ["PAL001"]
    # The module found by path is refused by our reader, so jedi is not asked to read it either.
    assert any("import of b" in n and "its module is not read" in n for n in program.notes), program.notes
    assert not any("Timeout" in n or "MemoryError" in n for n in program.notes), program.notes


def test_import_from_a_locked_folder_does_not_stop_the_analysis(tmp_path, monkeypatch):
    """For a normal user, nothing inside a folder without search permission can be stat'ed, and
    pathlib's ``is_file`` raises PermissionError there (Python 3.11): an import of such a module
    ended the workspace analysis (``check``: internal error). Tests run as root, who may stat
    anything, so os.stat and os.scandir are made to fail there as they do for a normal user."""
    from pallas_lsp.rules import default_engine
    from pallas_lsp.analysis.program import Program

    ws = tmp_path / "ws"
    (ws / "locked").mkdir(parents=True)
    (ws / "locked" / "mod.py").write_text("x = 1\n")
    (ws / "m.py").write_text("from locked.mod import x\nimport locked.mod\n" + KERNEL)
    fail_listing(monkeypatch, ws / "locked")
    real_stat = os.stat
    inside = os.fspath(ws / "locked") + os.sep

    def stat(path, *args, **kwargs):
        if isinstance(path, (str, os.PathLike)) and os.fspath(path).startswith(inside):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    with deadline(60):
        result = default_engine().analyse_in(Program(ws), str(ws / "m.py"))
    assert [f.code for f in result.findings] == ["PAL001"]
