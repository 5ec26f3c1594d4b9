"""The server's background work in process (no client): what the workers may read, and how
analyses are coalesced while the document keeps changing.

The workers run on their own threads while the event loop keeps changing the server's maps
(documents, generations) at every keystroke. A worker must only use what the loop handed it
with the job: iterating a live map from a worker raised "dictionary changed size during
iteration" and the workspace-wide result was silently dropped."""
from __future__ import annotations

import asyncio
import shutil
import threading

import pytest

from pallas_lsp.lsp.documents import Document
from pallas_lsp.lsp.server import PallasServer
from tests.conftest import DATA

WS = DATA / "workspaces" / "kernels_ws"


class LoopOnly(dict):
    """A server map that only the event loop's thread may read. A read from any other thread is
    recorded and fails the way the real race did (the loop changing the map mid-iteration)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.owner = threading.current_thread()
        self.off_loop: list[tuple[str, str]] = []

    def _check(self, what: str) -> None:
        if threading.current_thread() is not self.owner:
            self.off_loop.append((threading.current_thread().name, what))
            raise RuntimeError("dictionary changed size during iteration")

    def __iter__(self):
        self._check("iter")
        return super().__iter__()

    def items(self):
        self._check("items")
        return super().items()

    def keys(self):
        self._check("keys")
        return super().keys()

    def values(self):
        self._check("values")
        return super().values()

    def get(self, *args):
        self._check("get")
        return super().get(*args)

    def __getitem__(self, key):
        self._check("getitem")
        return super().__getitem__(key)

    def __contains__(self, key):
        self._check("contains")
        return super().__contains__(key)

    def __len__(self):
        self._check("len")
        return super().__len__()


def make_server(root) -> PallasServer:
    srv = PallasServer()
    srv.root = root
    srv.caps.pull = True  # nothing to publish to: results are read from srv.analysed
    srv.docs = LoopOnly()
    srv.gens = LoopOnly()
    srv.notebooks = LoopOnly()
    return srv


def open_in(srv: PallasServer, path) -> str:
    uri = path.as_uri()
    srv.docs[uri] = Document(uri, path.read_text(), 1)
    srv.bump(uri)
    return uri


async def workspace_result(srv: PallasServer, uri: str, timeout: float = 30.0):
    """The unit's analysis once the workspace-wide phase has replaced the module-alone one."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        a = srv.analysed.get(uri)
        if a is not None and not a.partial:
            return a
        await asyncio.sleep(0.05)
    raise AssertionError(f"no workspace-wide result for {uri} in {timeout:g} s")


@pytest.mark.asyncio
async def test_workspace_worker_reads_a_snapshot_never_the_live_maps(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(WS, ws)
    srv = make_server(ws)
    helper = open_in(srv, ws / "pkg" / "mgpu_kernels.py")
    test_uri = open_in(srv, ws / "tests" / "test_kernels.py")
    first = await srv.ensure(helper)
    assert first is not None and first.partial  # the module alone, answered first
    a = await workspace_result(srv, helper)
    # Found only by following the test module that launches the helper's kernel.
    codes = [(f.code, f.span.line) for f in a.result.findings]
    assert ("PAL003", 6) in codes, codes
    assert any("test_kernels.py" in f.message for f in a.result.findings)
    assert srv.docs.off_loop == [] and srv.gens.off_loop == [] and srv.notebooks.off_loop == []
    assert test_uri in srv.docs


@pytest.mark.asyncio
async def test_workspace_job_reads_the_text_of_its_own_generation(tmp_path):
    """A job reads the open documents as they were when it was submitted, even when the loop
    changes them before the worker gets to it."""
    ws = tmp_path / "ws"
    shutil.copytree(WS, ws)
    srv = make_server(ws)
    uri = open_in(srv, ws / "pkg" / "mgpu_kernels.py")
    path = str(ws / "pkg" / "mgpu_kernels.py")
    started, release = threading.Event(), threading.Event()
    # Hold the workspace worker so that the next job waits in its queue.
    blocker = srv.workspace_worker.submit(lambda: (started.set(), release.wait(10)))
    read = srv.submit_workspace(lambda: srv.open_texts.read(path))
    srv.docs[uri] = Document(uri, "edited = 1\n", 2)  # the loop moves on meanwhile
    await asyncio.get_running_loop().run_in_executor(None, started.wait, 10)
    release.set()
    await blocker
    assert (await read) == (ws / "pkg" / "mgpu_kernels.py").read_text()
    assert srv.docs.off_loop == []
