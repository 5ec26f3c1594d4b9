"""The server in a hostile workspace: a FIFO ``pyproject.toml``, a FIFO records file named by a
project's pyproject, a FIFO ``METADATA`` in the workspace's venv, a FIFO ``x.py``, a symlink to
/dev/zero, a self-looping symlink and a 177 MB file. Diagnostics (the module alone and the
workspace-wide result), hover and shutdown all answer in bounded time, in bounded memory (the
server runs under an address space limit), and each unreadable thing is said once, not acted on.
"""
from __future__ import annotations

import os
import sys
import textwrap
import time

import pytest

from tests.robustness import rawclient
from tests.robustness.rawclient import RawClient

HELPERS = textwrap.dedent("""
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import mosaic_gpu as plgpu
    def barrier():
        s = pl.get_global(plgpu.SemaphoreType.REGULAR)
        pl.semaphore_signal(s)
""")
LAUNCH = textwrap.dedent("""
    from jax.experimental import pallas as pl
    from helpers import barrier
    def k(x_ref, o_ref):
        barrier()
    f = pl.pallas_call(k, out_shape=None, interpret=True)
""")
MEMORY_LIMIT = 3_000_000_000  # bytes of address space: far below what reading /dev/zero takes


def hostile_workspace(ws, hazard):
    """A workspace with a cross-module finding, a project with its own records, a venv, and one
    ``hazard`` (each alone, so that each is shown to freeze nothing on its own)."""
    ws.mkdir()
    (ws / "helpers.py").write_text(HELPERS)
    (ws / "run_kernels.py").write_text(LAUNCH)
    site = ws / ".venv" / "lib" / "python3.11" / "site-packages" / "jax-0.4.30.dist-info"
    site.mkdir(parents=True)
    (ws / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    proj = ws / "proj"
    proj.mkdir()
    (proj / "pyproject.toml").write_text('[tool.pallas-lsp]\nrecords = ["extra.json"]\n')
    (proj / "k.py").write_text(HELPERS + LAUNCH.replace("from helpers import barrier\n", ""))
    if hazard == "pyproject":
        os.mkfifo(ws / "pyproject.toml")
    (proj / "extra.json").write_text("[]")
    if hazard == "records":
        (proj / "extra.json").unlink()
        os.mkfifo(proj / "extra.json")
    (site / "METADATA").write_text("Name: jax\nVersion: 0.4.30\n")
    if hazard == "metadata":
        (site / "METADATA").unlink()
        os.mkfifo(site / "METADATA")
    if hazard == "workspace files":
        os.mkfifo(ws / "x.py")
        (ws / "evil.py").symlink_to("/dev/zero")
        (ws / "loop.py").symlink_to("loop.py")
        with open(ws / "big.py", "wb") as f:  # sparse: no disk spent
            f.truncate(177_000_000)
    return ws


def codes_when_settled(c, uri, want, timeout=60.0):
    deadline = time.monotonic() + timeout
    codes = []
    while time.monotonic() < deadline:
        codes = [d["code"] for d in c.diagnostics(uri, timeout=max(1.0, deadline - time.monotonic()))]
        if codes == want:
            break
        time.sleep(0.2)
    return codes


@pytest.mark.skipif(sys.platform != "linux", reason="FIFOs and /dev/zero as used here are Linux facts")
@pytest.mark.parametrize("hazard", ["pyproject", "records", "metadata", "workspace files"])
def test_fifos_devices_and_huge_files_freeze_nothing(tmp_path, monkeypatch, hazard):
    ws = hostile_workspace(tmp_path / "ws", hazard)
    monkeypatch.setattr(rawclient, "SERVER", ["prlimit", f"--as={MEMORY_LIMIT}", *rawclient.SERVER])
    c = RawClient(cwd=str(tmp_path))
    try:
        caps = {"textDocument": {"diagnostic": {}}, "general": {"positionEncodings": ["utf-16"]}}
        c.request("initialize", {"processId": None, "rootUri": ws.as_uri(), "capabilities": caps,
                                 "initializationOptions": {"debounceMs": 0}}, timeout=30)
        c.notify("initialized", {})
        for path in ("run_kernels.py", "helpers.py", "proj/k.py"):
            c.open((ws / path).as_uri(), (ws / path).read_text())
        # The construct in helpers.py is found only through run_kernels.py: the workspace
        # analysis (which walks and reads the whole folder) finished.
        assert codes_when_settled(c, (ws / "helpers.py").as_uri(), ["PAL001"]) == ["PAL001"]
        assert codes_when_settled(c, (ws / "proj/k.py").as_uri(), ["PAL001"]) == ["PAL001"]
        # A hover on a finding reads the venv's METADATA (a FIFO here).
        line = HELPERS.splitlines().index("    s = pl.get_global(plgpu.SemaphoreType.REGULAR)")
        hover = c.request("textDocument/hover", {"textDocument": {"uri": (ws / "proj/k.py").as_uri()},
                                                 "position": {"line": line, "character": 12}}, timeout=30)
        assert "error" not in hover and hover["result"] is not None, hover
        told = [n["params"]["message"] for n in c.notifications if n["method"] == "window/showMessage"]
        fifo = [m for m in told if "not a regular file (FIFO)" in m]
        if hazard == "pyproject":
            assert len(fifo) == 1 and "pyproject.toml: cannot read" in fifo[0], told
        elif hazard == "records":
            assert len(fifo) == 1 and "extra.json" in fifo[0], told
        else:  # the venv and workspace files are skipped silently, as unreadable modules are
            assert fifo == [], told
        assert c.close() == 0
    finally:
        if c.alive():
            c.proc.kill()
