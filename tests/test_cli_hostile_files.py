"""``pallas-lsp check`` over entries that used to hang it, exhaust its memory, stop the whole run
or get reported as clean: each is one finding (PAL902 not read, PAL903 too large, PAL900 not
decodable), the rest of the run keeps its findings, the exit code is 1, in every output format
and with ``-j`` workers. Every run has a timeout; the memory-hungry shapes run under an address
space limit."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import pytest

from tests.conftest import CORPUS, pallas_cli

KERNEL = (CORPUS / "get_global_interpret_true_basic.py").read_text()
MEMORY_LIMIT = 1_500_000_000  # bytes of address space for the memory-bound runs


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(*args, cwd=None, timeout=120, bounded_memory=False):
    return subprocess.run(pallas_cli() + list(args), capture_output=True, text=True, cwd=cwd, timeout=timeout,
                          preexec_fn=limit_memory if bounded_memory else None)


def found(proc) -> list[tuple[str, str]]:
    return sorted((os.path.basename(f["path"]), f["code"]) for f in json.loads(proc.stdout))


def workspace(root, *, copies=1):
    root.mkdir(exist_ok=True)
    for i in range(copies):
        (root / f"good{i}.py").write_text(KERNEL)
    return root


def test_fifo_py_in_a_folder_is_reported_and_the_run_goes_on(tmp_path):
    ws = workspace(tmp_path / "ws")
    os.mkfifo(ws / "x.py")
    proc = run("check", "--output-format", "json", str(ws), timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert found(proc) == [("good0.py", "PAL001"), ("x.py", "PAL902")]
    assert "not a regular file (FIFO)" in proc.stdout


def test_fifo_named_on_the_command_line_is_never_no_problems(tmp_path):
    os.mkfifo(tmp_path / "x.py")
    proc = run("check", str(tmp_path / "x.py"), timeout=60)
    assert proc.returncode == 1
    assert "No problems" not in proc.stdout
    assert "PAL902" in proc.stdout and "not a regular file (FIFO)" in proc.stdout


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_every_hostile_entry_is_one_finding_in_every_format(tmp_path, monkeypatch, fmt, jobs):
    # More than 8 files, so that -j 2 really uses worker processes.
    ws = workspace(tmp_path / "ws", copies=9)
    os.mkfifo(ws / "x.py")
    (ws / "evil.py").symlink_to("/dev/zero")
    (ws / "loop.py").symlink_to("loop.py")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "far.py").write_text(KERNEL)
    (ws / "outside").symlink_to(tmp_path / "elsewhere")
    proc = run("check", "--output-format", fmt, "-j", jobs, str(ws), timeout=120, bounded_memory=True)
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    for name, reason in [("x.py", "not a regular file (FIFO)"), ("evil.py", "not a regular file (character device)"),
                         ("loop.py", "symlink loop"), ("outside", "symlinked folders are not followed")]:
        assert name in out and reason in out, (name, out)
    assert out.count("PAL902") >= 4 and out.count("PAL001") >= 9
    if fmt == "json":
        assert found(proc) == sorted([(f"good{i}.py", "PAL001") for i in range(9)]
                                     + [("evil.py", "PAL902"), ("loop.py", "PAL902"), ("outside", "PAL902"),
                                        ("x.py", "PAL902")])


def test_dev_zero_symlink_is_not_read_in_bounded_memory(tmp_path):
    ws = workspace(tmp_path / "ws")
    (ws / "evil.py").symlink_to("/dev/zero")
    (tmp_path / "evil.json").symlink_to("/dev/zero")
    proc = run("check", "--output-format", "json", "--records", str(tmp_path / "evil.json"), str(ws),
               timeout=60, bounded_memory=True)
    assert proc.returncode == 1, proc.stderr
    assert found(proc) == [("evil.py", "PAL902"), ("good0.py", "PAL001")]
    assert "not a regular file (character device)" in proc.stderr  # the records path too


def test_a_177_mb_file_is_never_read(tmp_path):
    ws = workspace(tmp_path / "ws")
    with open(ws / "big.py", "wb") as f:  # sparse: no disk spent
        f.truncate(177_000_000)
    proc = run("check", "--output-format", "json", str(ws), timeout=60, bounded_memory=True)
    assert proc.returncode == 1, proc.stderr
    assert found(proc) == [("big.py", "PAL903"), ("good0.py", "PAL001")]
    assert "larger than 5000000 bytes (177000000 bytes)" in proc.stdout


def test_self_looping_symlink_does_not_end_the_run(tmp_path):
    ws = workspace(tmp_path / "ws")
    (ws / "loop.py").symlink_to("loop.py")
    proc = run("check", "--output-format", "json", str(ws), timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert "internal error" not in proc.stderr
    assert found(proc) == [("good0.py", "PAL001"), ("loop.py", "PAL902")]


def test_unlistable_subfolder_is_reported_and_the_run_goes_on(tmp_path, monkeypatch, capsys):
    """In-process: tests run as root, and root lists a mode-000 folder anyway, so listing is made
    to fail as it does for a normal user (os.scandir raises PermissionError; os.walk uses it too)."""
    from pallas_lsp.cli import main

    ws = workspace(tmp_path / "ws")
    (ws / "locked").mkdir()
    (ws / "locked" / "k.py").write_text(KERNEL)
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path) == str(ws / "locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    rc = main(["check", "--output-format", "json", str(ws)])
    out = json.loads(capsys.readouterr().out)
    assert rc == 1
    assert sorted((os.path.basename(f["path"]), f["code"], f["message"]) for f in out) == [
        ("good0.py", "PAL001", out[0]["message"]),
        ("locked", "PAL902", "Cannot read: cannot list this folder: permission denied")]


def test_fifo_pyproject_and_fifo_records_do_not_hang_check(tmp_path):
    ws = workspace(tmp_path / "ws")
    os.mkfifo(ws / "pyproject.toml")
    proc = run("check", "--output-format", "json", str(ws), timeout=60)
    assert proc.returncode == 1
    assert found(proc) == [("good0.py", "PAL001")]
    assert "cannot read: not a regular file (FIFO)" in proc.stderr
    proj = workspace(tmp_path / "proj")
    (proj / "pyproject.toml").write_text('[tool.pallas-lsp]\nrecords = ["extra.json"]\n')
    os.mkfifo(proj / "extra.json")
    proc = run("check", "--output-format", "json", str(proj), timeout=60)
    assert proc.returncode == 1
    assert found(proc) == [("good0.py", "PAL001")]
    assert "not a regular file (FIFO)" in proc.stderr


def test_latin1_file_with_coding_line_keeps_its_finding(tmp_path):
    # The kernel's names are non-ASCII, written in latin-1 as the coding line declares.
    src = "# -*- coding: latin-1 -*-\n" + KERNEL.replace("sem", "sémaphore").replace("add_one_kernel", "noyau_été")
    (tmp_path / "k.py").write_bytes(src.encode("latin-1"))
    compile((tmp_path / "k.py").read_bytes(), "k.py", "exec")  # CPython runs it
    proc = run("check", "--output-format", "json", str(tmp_path / "k.py"))
    out = json.loads(proc.stdout)
    assert [(f["code"], f["line"]) for f in out] == [("PAL001", 10)]
    assert "kernel `noyau_été`" in out[0]["message"]  # the name read as CPython reads it


def test_utf16_file_with_bom_gets_one_pal900(tmp_path):
    (tmp_path / "k.py").write_bytes(KERNEL.encode("utf-16"))
    proc = run("check", "--output-format", "json", str(tmp_path / "k.py"))
    out = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert [(f["code"], f["line"]) for f in out] == [("PAL900", 1)]
    assert "UTF-16 byte order mark" in out[0]["message"]


def test_invalid_utf8_without_coding_line_is_one_pal900_and_exit_1(tmp_path):
    (tmp_path / "k.py").write_bytes(b'x = 1\n\ny = "caf\xe9"\n')
    proc = run("check", "--output-format", "json", str(tmp_path / "k.py"))
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert [(f["code"], f["line"]) for f in out] == [("PAL900", 3)]
    assert "Non-UTF-8 code starting with '\\xe9' on line 3" in out[0]["message"]
    text = run("check", str(tmp_path / "k.py"))
    assert text.returncode == 1 and "No problems" not in text.stdout


if sys.platform != "linux":  # FIFOs, /dev/zero and RLIMIT_AS as used here are Linux facts
    pytestmark = pytest.mark.skip(reason="Linux only")
