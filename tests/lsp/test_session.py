"""The session and the server's shape (issue 39, item 1): one close for text documents and
notebooks, problems told once per session (not once per process), no module-level server and
no LSP module past 400 lines."""
from __future__ import annotations

import asyncio
import importlib
import pkgutil
from pathlib import Path

import pytest
from lsprotocol import types as lsp

import pallas_lsp.lsp
from pallas_lsp.lsp import text_sync
from pallas_lsp.lsp.server import create_server
from pallas_lsp.lsp.settings import Settings
from tests.lsp.conftest import diagnostics

KERNEL = """import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def scaled(x_ref, o_ref):
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
    pl.semaphore_signal(sem)
    o_ref[...] = x_ref[...] * 2.0


y = pl.pallas_call(scaled, out_shape=jax.ShapeDtypeStruct((4,), jnp.float32), interpret=True)(jnp.ones(4))
"""
CLEAN = KERNEL.replace("interpret=True", "interpret=False")
NB = "file:///tmp/scaling.ipynb"


def cell_uris(n: int) -> list[str]:
    return [f"vscode-notebook-cell:/tmp/scaling.ipynb#k{i}" for i in range(n)]


def notebook_open_params(texts: list[str]) -> lsp.DidOpenNotebookDocumentParams:
    uris = cell_uris(len(texts))
    return lsp.DidOpenNotebookDocumentParams(
        notebook_document=lsp.NotebookDocument(uri=NB, notebook_type="jupyter-notebook", version=1, cells=[
            lsp.NotebookCell(kind=lsp.NotebookCellKind.Code, document=u) for u in uris]),
        cell_text_documents=[lsp.TextDocumentItem(uri=u, language_id="python", version=1, text=t)
                             for u, t in zip(uris, texts)])


def halves(text: str) -> list[str]:
    """The kernel as two cells: the imports and the definition, then the launch."""
    lines = text.splitlines(keepends=True)
    return ["".join(lines[:11]), "".join(lines[11:])]


# --- one close for both kinds of unit ------------------------------------------------------------
def open_unit(srv, kind: str, text: str) -> str:
    if kind == "text":
        uri = "file:///tmp/scaling_kernel.py"
        text_sync.did_open(srv.session, srv.scheduler, lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        return uri
    text_sync.notebook_did_open(srv.session, srv.scheduler, notebook_open_params(halves(text)))
    return NB


def close_unit(srv, kind: str, unit: str) -> None:
    if kind == "text":
        text_sync.did_close(srv.session, srv.scheduler, lsp.DidCloseTextDocumentParams(
            lsp.TextDocumentIdentifier(unit)))
    else:
        text_sync.notebook_did_close(srv.session, srv.scheduler, lsp.DidCloseNotebookDocumentParams(
            notebook_document=lsp.NotebookDocumentIdentifier(NB),
            cell_text_documents=[lsp.TextDocumentIdentifier(u) for u in cell_uris(2)]))


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["text", "notebook"])
async def test_closing_a_unit_leaves_nothing_of_it(kind):
    """A text document and a notebook close the same way: the publish still waiting out its
    debounce is cancelled, what its last workspace analysis read is forgotten, a job queued for
    it is stale, and a push client's diagnostics for its documents are cleared."""
    srv = create_server()
    srv.session.settings = Settings(debounce_ms=60_000, cross_module=False)  # the publish stays pending
    published: list[tuple[str, list]] = []
    srv.text_document_publish_diagnostics = lambda p: published.append((p.uri, list(p.diagnostics)))
    unit = open_unit(srv, kind, KERNEL)
    uris = srv.session.uris_of(unit)
    pending = srv.scheduler.debounce[unit]
    stale = srv.session.stale_flag(unit)
    srv.session.deps[unit] = {"/tmp/helpers.py"}
    close_unit(srv, kind, unit)
    await asyncio.sleep(0)  # the cancellation is delivered
    assert pending.cancelled()
    assert stale.is_set()
    assert unit not in srv.scheduler.debounce
    for state in (srv.session.gens, srv.session.analysed, srv.session.deps, srv.session.stale_flags,
                  srv.session.notebooks):
        assert unit not in state
    assert not any(u in srv.session.docs for u in uris)
    assert published == [(u, []) for u in uris]


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["text", "notebook"])
async def test_a_pull_client_is_sent_nothing_on_close(kind):
    """(Its clean twin: a pull client asks for diagnostics itself; nothing is published.)"""
    srv = create_server()
    srv.session.caps.pull = True
    srv.session.settings = Settings(cross_module=False)
    published: list = []
    srv.text_document_publish_diagnostics = published.append
    unit = open_unit(srv, kind, CLEAN)
    assert await srv.scheduler.ensure(unit) is not None
    close_unit(srv, kind, unit)
    assert published == [] and srv.session.docs == {} and unit not in srv.session.analysed


@pytest.mark.asyncio
async def test_closing_a_notebook_clears_its_cells_diagnostics(client):
    """End to end: a push client no longer shows a closed notebook's findings (the notebook's
    close used to skip what the text document's close did); a pull client just stops asking."""
    uris = cell_uris(2)
    client.notebook_document_did_open(notebook_open_params(halves(KERNEL)))
    got = await diagnostics(client, uris[0])
    assert [d.code for d in got] == ["PAL001"]
    client.notebook_document_did_close(lsp.DidCloseNotebookDocumentParams(
        notebook_document=lsp.NotebookDocumentIdentifier(NB),
        cell_text_documents=[lsp.TextDocumentIdentifier(u) for u in uris]))
    if client.pull:
        assert await diagnostics(client, uris[0]) == []  # (no longer open: nothing to report)
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while loop.time() < deadline and list(client.published[uris[0]][-1][1]) != []:
        await asyncio.sleep(0.02)
    assert list(client.published[uris[0]][-1][1]) == []


# --- told once per session --------------------------------------------------------------------------
def test_each_session_tells_its_own_client(tmp_path):
    """A problem told to one session's client is still told to another's (the told messages
    were a class attribute: a second server instance never told its client), once each, and
    again after the configuration files changed."""
    missing = str(tmp_path / "team-records.json")
    told: dict[str, list[str]] = {"first": [], "second": []}
    servers = {}
    for name in told:
        srv = servers[name] = create_server()
        srv.session.tell = told[name].append
        srv.session.apply_settings({"records": [missing]})
    for srv in servers.values():
        srv.session.store(NB)
        srv.session.store(NB)
    want = [f"records file not found: {missing}"]
    assert told == {"first": want, "second": want}
    servers["first"].session.config_files_changed()
    servers["first"].session.store(NB)
    assert told["first"] == want * 2 and told["second"] == want


# --- the server's shape ----------------------------------------------------------------------------
LSP_DIR = Path(pallas_lsp.lsp.__file__).parent


def lsp_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules([str(LSP_DIR)]))


@pytest.mark.parametrize("name", lsp_modules())
def test_no_lsp_module_is_past_400_lines(name):
    lines = len((LSP_DIR / f"{name}.py").read_text().splitlines())
    assert lines <= 400, f"lsp/{name}.py has {lines} lines: split it by what it does"


def test_no_module_holds_a_server():
    """Servers are made by create_server(), each with its own session: importing the package
    creates none (a module-level server was shared by every test and every TCP client)."""
    from pygls.lsp.server import LanguageServer

    for name in lsp_modules():
        module = importlib.import_module(f"pallas_lsp.lsp.{name}")
        held = [k for k, v in vars(module).items() if isinstance(v, LanguageServer)]
        assert held == [], f"pallas_lsp.lsp.{name} holds {held}"
    a, b = create_server(), create_server()
    assert a.session is not b.session and a.session.told is not b.session.told
