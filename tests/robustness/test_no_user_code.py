"""The server and the CLI read workspace code; they never import or execute it. Every module of
this workspace would write a marker file and open a socket to the test if it ran."""
import json
import socket
import subprocess
import textwrap

import pytest

from tests.conftest import pallas_cli
from tests.robustness.rawclient import RawClient

PROBE = textwrap.dedent("""
    import pathlib, socket
    pathlib.Path({marker!r}).write_text("executed")
    socket.create_connection(("127.0.0.1", {port}), timeout=1).close()
""")


@pytest.fixture()
def trap(tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "nspkg").mkdir()  # a namespace package: resolved by jedi, not by the fast path
    marker = tmp_path / "MARKER"
    probe = PROBE.format(marker=str(marker), port=port)
    (ws / "pkg" / "__init__.py").write_text(probe)
    (ws / "pkg" / "helpers.py").write_text(probe + textwrap.dedent("""
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import mosaic_gpu as plgpu
        def barrier():
            s = pl.get_global(plgpu.SemaphoreType.REGULAR)
            pl.semaphore_signal(s)
    """))
    (ws / "nspkg" / "more.py").write_text(probe + "def noop(o_ref):\n    pass\n")
    (ws / "run_kernels.py").write_text(probe + textwrap.dedent("""
        from jax.experimental import pallas as pl
        from pkg.helpers import barrier
        from nspkg.more import noop
        def k(x_ref, o_ref):
            barrier()
            noop(o_ref)
        f = pl.pallas_call(k, out_shape=None, interpret=True)
        if __name__ == "__main__":
            f(None)
    """))
    (ws / "setup.py").write_text(probe)
    (ws / "conftest.py").write_text(probe)
    yield ws, marker, listener
    listener.close()


def nothing_ran(marker, listener):
    assert not marker.exists()
    with pytest.raises(socket.timeout):
        listener.accept()


def test_cli_never_runs_workspace_code(trap):
    ws, marker, listener = trap
    proc = subprocess.run(pallas_cli() + ["check", "--output-format", "json", str(ws)], capture_output=True,
                          text=True, timeout=120)
    found = json.loads(proc.stdout)
    assert [(f["path"].rsplit("/", 1)[-1], f["code"]) for f in found] == [("helpers.py", "PAL001")]
    nothing_ran(marker, listener)


def test_server_never_runs_workspace_code(trap):
    ws, marker, listener = trap
    c = RawClient(cwd=str(ws))
    caps = {"textDocument": {"diagnostic": {}}, "general": {"positionEncodings": ["utf-16"]}}
    c.request("initialize", {"processId": None, "rootUri": ws.as_uri(), "capabilities": caps,
                             "initializationOptions": {"debounceMs": 0}})
    c.notify("initialized", {})
    for path in ("run_kernels.py", "pkg/helpers.py", "nspkg/more.py", "setup.py"):
        c.open((ws / path).as_uri(), (ws / path).read_text())
    import time

    deadline = time.monotonic() + 60
    codes = []
    while time.monotonic() < deadline:
        codes = [d["code"] for d in c.diagnostics((ws / "pkg/helpers.py").as_uri())]
        if codes:
            break
        time.sleep(0.2)
    assert codes == ["PAL001"]  # found across modules, by reading only
    c.request("textDocument/hover", {"textDocument": {"uri": (ws / "run_kernels.py").as_uri()},
                                     "position": {"line": 8, "character": 10}})
    assert c.close() == 0
    nothing_ran(marker, listener)
