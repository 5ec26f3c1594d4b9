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
from pallas_lsp.lsp.server import PallasServer, create_server
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
    srv = create_server()
    srv.session.root = root
    srv.session.caps.pull = True  # nothing to publish to: results are read from srv.session.analysed
    srv.session.docs = LoopOnly()
    srv.session.gens = LoopOnly()
    srv.session.notebooks = LoopOnly()
    return srv


def open_in(srv: PallasServer, path) -> str:
    uri = path.as_uri()
    srv.session.docs[uri] = Document(uri, path.read_text(), 1)
    srv.session.bump(uri)
    return uri


async def workspace_result(srv: PallasServer, uri: str, timeout: float = 30.0):
    """The unit's analysis once the workspace-wide phase has replaced the module-alone one."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        a = srv.session.analysed.get(uri)
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
    first = await srv.scheduler.ensure(helper)
    assert first is not None and first.partial  # the module alone, answered first
    a = await workspace_result(srv, helper)
    # Found only by following the test module that launches the helper's kernel.
    codes = [(f.code, f.span.line) for f in a.result.findings]
    assert ("PAL003", 6) in codes, codes
    assert any("test_kernels.py" in f.message for f in a.result.findings)
    assert srv.session.docs.off_loop == [] and srv.session.gens.off_loop == [] and srv.session.notebooks.off_loop == []
    assert test_uri in srv.session.docs


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
    blocker = srv.scheduler.workspace_worker.submit(lambda: (started.set(), release.wait(10)))
    read = srv.scheduler.submit_workspace(lambda: srv.session.open_texts.read(path))
    srv.session.docs[uri] = Document(uri, "edited = 1\n", 2)  # the loop moves on meanwhile
    await asyncio.get_running_loop().run_in_executor(None, started.wait, 10)
    release.set()
    await blocker
    assert (await read) == (ws / "pkg" / "mgpu_kernels.py").read_text()
    assert srv.session.docs.off_loop == []


# --- coalescing: the latest version wins -------------------------------------------------------
def slow_engine(srv: PallasServer, delay_s: float) -> list[str]:
    """Make each module-alone analysis take at least ``delay_s`` (so edits land while it runs);
    returns the list of texts analysed, in order."""
    import time

    analysed: list[str] = []
    real = srv.session.engine.analyse

    def analyse(text, path=None, **kw):
        analysed.append(text)
        time.sleep(delay_s)
        return real(text, path, **kw)

    srv.session.engine.analyse = analyse
    return analysed


def type_into(srv: PallasServer, uri: str, version: int, line: int, col: int, ch: str) -> str:
    """What didChange does: apply the edit, bump the generation, schedule (push)."""
    from lsprotocol import types as lsp

    doc = srv.session.docs[uri]
    doc.apply_change(lsp.Range(lsp.Position(line, col), lsp.Position(line, col)), ch, "utf-16")
    doc.version = version
    srv.session.bump(uri)
    srv.scheduler.schedule(uri)
    return doc.text


def fresh_findings(text: str, path: str) -> list[tuple]:
    from pallas_lsp.rules import default_engine

    return [(f.code, f.span.line, f.span.col, f.message) for f in default_engine().analyse(text, path).findings]


KERNEL = (DATA / "corpus" / "get_global_interpret_true_basic.py").read_text()
TYPED_LINE = "    o_ref[...] = x_ref[...] + 1.0"  # digits typed after its `1.0` keep it valid


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["push", "pull"])
async def test_rapid_edits_analyse_only_the_newest_version(tmp_path, mode):
    """20 keystrokes while an analysis runs: far fewer than 20 analyses, none of a version typed
    in between, no stale result published, and the final diagnostics equal a fresh analysis."""
    from pallas_lsp.lsp.settings import Settings

    path = tmp_path / "kern.py"
    path.write_text(KERNEL)
    srv = create_server()
    srv.session.settings = Settings(debounce_ms=0, cross_module=False)  # no delay does the coalescing
    srv.session.caps.pull = mode == "pull"
    published: list[tuple[int, list]] = []
    texts_by_version: dict[int, str] = {}
    srv.text_document_publish_diagnostics = lambda p: published.append((p.version, p.diagnostics))
    uri = path.as_uri()
    srv.session.docs[uri] = Document(uri, KERNEL, 1)
    texts_by_version[1] = KERNEL
    srv.session.bump(uri)
    analysed = slow_engine(srv, 0.05)
    first = asyncio.ensure_future(srv.scheduler.ensure(uri))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while not analysed and loop.time() < deadline:  # until the first analysis runs
        await asyncio.sleep(0.001)
    pulls = []
    line = KERNEL.splitlines().index(TYPED_LINE)
    for i, ch in enumerate("12345678901234567890"):
        version = i + 2
        texts_by_version[version] = type_into(srv, uri, version, line, len(TYPED_LINE) + i, ch)
        if mode == "pull":  # a pull client asks after every change
            pulls.append(asyncio.ensure_future(srv.scheduler.ensure(uri)))
        await asyncio.sleep(0.001)  # typing: the loop runs between keystrokes
    final_version = version
    final = await srv.scheduler.ensure(uri)
    await first
    results = await asyncio.gather(*pulls)
    await asyncio.sleep(0.05)  # any publish still on its way
    # The analysis running at the first keystroke, then the newest text: nothing in between.
    assert len(analysed) <= 3, len(analysed)
    assert analysed[0] == KERNEL and analysed[-1] == texts_by_version[final_version]
    assert final.gen == srv.session.gens[uri] and final.text == texts_by_version[final_version]
    got = [(f.code, f.span.line, f.span.col, f.message) for f in final.result.findings]
    assert got == fresh_findings(texts_by_version[final_version], str(path))
    assert ("PAL001", 9, 10) in [g[:3] for g in got]
    if mode == "pull":
        # Every pull answered, each with an analysis at least as new as its own change.
        assert all(r is not None for r in results)
        assert results[-1].text == texts_by_version[final_version]
    else:
        # Published: only the newest version (a result for a version typed past is never sent).
        assert published and all(v == final_version for v, _ in published), [v for v, _ in published]
        want = [(d.code, d.range.start.line, d.range.start.character) for d in published[-1][1]]
        assert ("PAL001", 8, 10) in want


# --- what `initialize` waits for ----------------------------------------------------------------
def test_importing_the_server_loads_no_analysis_module():
    """`initialize` is answered as soon as the server module is imported: the engine, rules,
    records, jedi and libcst are imported afterwards (warm_up, on the worker)."""
    import subprocess
    import sys

    code = ("import sys, pallas_lsp.lsp.server as s; "
            "heavy = sorted(m for m in sys.modules if m.startswith(('pallas_lsp.analysis', 'pallas_lsp.rules', "
            "'pallas_lsp.records', 'pallas_lsp.present', 'pallas_lsp.explain', 'jedi', 'libcst'))); "
            "print(heavy); print(sorted(s.create_server().scheduler.workers))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "[]"], out.stdout + out.stderr


@pytest.mark.asyncio
async def test_warm_up_loads_the_engine_and_the_records_on_the_worker():
    srv = create_server()
    assert srv.session._engine is None and not srv.session._stores
    srv.scheduler.warm_up()
    await srv.scheduler.worker.submit(lambda: None)  # the worker runs jobs in order: warm_up is done
    await asyncio.sleep(0)  # its done-callback ran on the loop
    assert srv.session._engine is not None and list(srv.session._stores) == [()]
    assert srv.session.store_for(srv.session.config_for("untitled:1")) is srv.session._stores[()]


@pytest.fixture
def collections(monkeypatch):
    """Whether the collector was on at each gc.collect() (the server's collections); the
    collector is on again after the test, whatever happened in it."""
    import gc

    seen: list[bool] = []
    real = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *a: (seen.append(gc.isenabled()), real(*a))[1])
    yield seen
    gc.enable()


def cold_server(tmp_path, pull: bool) -> tuple[PallasServer, str, list[bool]]:
    """A server with one document open and not yet analysed; the list records whether the
    collector was on at each of its analyses."""
    import gc

    from pallas_lsp.lsp.settings import Settings

    srv = create_server()
    srv.session.settings = Settings(cross_module=False)
    srv.session.caps.pull = pull
    analyses: list[bool] = []
    real = srv.session.engine.analyse
    srv.session.engine.analyse = lambda *a, **kw: (analyses.append(gc.isenabled()), real(*a, **kw))[1]
    uri = (tmp_path / "k.py").as_uri()
    srv.session.docs[uri] = Document(uri, KERNEL, 1)
    srv.session.bump(uri)
    return srv, uri, analyses


async def collector_on(srv: PallasServer, monkeypatch, timeout: float = 10.0) -> None:
    """Until the collection the cold analysis owes has run (the worker idle from now on)."""
    import gc

    import pallas_lsp.lsp.workers as workers_module

    monkeypatch.setattr(workers_module, "SETTLE_IDLE_S", 0.01)
    await srv.scheduler.worker.submit(lambda: None)  # (wakes it: it waits with the idle time it read)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (srv.scheduler.collector.owed or not gc.isenabled()) and loop.time() < deadline:
        await asyncio.sleep(0.01)


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["push", "pull"])
async def test_the_cold_result_goes_out_before_the_collection_it_skipped(tmp_path, monkeypatch, collections, mode):
    """The first analysis runs with the collector paused, and it stays paused while the result
    is published or answered (turned on at once, the diagnostics' first allocations paid a pass
    over the new trees, and the collection after held the lock while the loop waited to publish).
    One collection runs once the worker is idle, and the collector is on again."""
    import gc

    from lsprotocol import types as lsp

    import pallas_lsp.lsp.workers as workers_module

    monkeypatch.setattr(workers_module, "SETTLE_IDLE_S", 60.0)  # (however slow this machine)
    srv, uri, analyses = cold_server(tmp_path, pull=mode == "pull")
    sent = []
    if mode == "push":
        srv.scheduler.publish = lambda unit, a: sent.append((gc.isenabled(), list(collections), len(a.result.findings)))
        srv.scheduler.schedule(uri)
        await srv.scheduler.debounce[uri]
    else:
        from pallas_lsp.lsp.diagnostics import pull_diagnostics

        params = lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri))
        task = asyncio.ensure_future(pull_diagnostics(srv.session, srv.scheduler, params))
        # As pygls does: the callback that writes the response is added when the handler starts.
        task.add_done_callback(lambda t: sent.append((gc.isenabled(), list(collections), len(t.result().items))))
        await task
        await asyncio.sleep(0)  # the task's callbacks run
    assert analyses == [False] and sent == [(False, [], 1)]
    await collector_on(srv, monkeypatch)
    assert collections == [False] and gc.isenabled() and not srv.scheduler.collector.owed


@pytest.mark.asyncio
async def test_a_keystroke_right_after_the_open_does_not_wait_for_the_collection(tmp_path, monkeypatch,
                                                                                collections):
    """Typed before the worker was idle long enough: analysed with the collector still paused,
    and the one collection runs after it."""
    import gc

    import pallas_lsp.lsp.workers as workers_module

    monkeypatch.setattr(workers_module, "SETTLE_IDLE_S", 60.0)
    srv, uri, analyses = cold_server(tmp_path, pull=True)
    await srv.scheduler.ensure(uri)
    assert srv.scheduler.collector.owed and not gc.isenabled()
    srv.session.docs[uri] = Document(uri, KERNEL + "\nx = 1\n", 2)
    srv.session.bump(uri)
    await srv.scheduler.ensure(uri)
    assert analyses == [False, False] and collections == []
    await collector_on(srv, monkeypatch)
    assert collections == [False] and gc.isenabled()


@pytest.mark.asyncio
async def test_the_collector_is_not_paused_past_its_limit(tmp_path, monkeypatch, collections):
    """Typing that never leaves the worker idle: once the collector has been paused for
    SETTLE_MAX_S, the collection runs before the next analysis."""
    import gc

    import pallas_lsp.lsp.workers as workers_module

    monkeypatch.setattr(workers_module, "SETTLE_MAX_S", 0.0)
    srv, uri, analyses = cold_server(tmp_path, pull=True)
    await srv.scheduler.ensure(uri)
    srv.session.docs[uri] = Document(uri, KERNEL + "\nx = 1\n", 2)
    srv.session.bump(uri)
    await srv.scheduler.ensure(uri)
    assert analyses == [False, True] and collections == [False] and gc.isenabled()
