"""Text documents and notebooks opened, changed and closed (the client's copies of their text)."""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from .documents import Notebook
from .session import uri_to_path

if TYPE_CHECKING:
    from .scheduler import Scheduler
    from .session import Session

log = logging.getLogger("pallas_lsp")


def did_open(session: Session, scheduler: Scheduler, params: lsp.DidOpenTextDocumentParams) -> None:
    td = params.text_document
    if not session.open_text(td):
        return  # one of a notebook's cells: the notebook's own messages say what it holds
    scheduler.schedule(td.uri)
    if (p := uri_to_path(td.uri)) and session.program is not None:
        scheduler.module_changed(p)


def did_change(session: Session, scheduler: Scheduler, params: lsp.DidChangeTextDocumentParams) -> None:
    doc = session.docs.get(params.text_document.uri)
    if doc is None:
        log.warning("didChange for a document that is not open: %s", params.text_document.uri)
        return
    v = params.text_document.version
    if v is not None and doc.version is not None and v < doc.version:
        log.warning("didChange version %s is older than %s for %s; applied anyway", v, doc.version, doc.uri)
    for ch in params.content_changes:
        doc.apply_change(getattr(ch, "range", None), ch.text, session.caps.encoding)
    doc.version = v
    scheduler.lenses.typed(session.unit_of(doc.uri))
    scheduler.changed(session.unit_of(doc.uri))
    if doc.notebook is None and (p := uri_to_path(doc.uri)):
        scheduler.module_changed(p)
        scheduler.refresh_if_pending()


def did_close(session: Session, scheduler: Scheduler, params: lsp.DidCloseTextDocumentParams) -> None:
    doc = session.docs.get(params.text_document.uri)
    if doc is None or doc.notebook:
        return
    scheduler.close(doc.uri)


def notebook_did_open(session: Session, scheduler: Scheduler, params: lsp.DidOpenNotebookDocumentParams) -> None:
    nd = params.notebook_document
    nb = Notebook(nd.uri, nd.version, [c.document for c in nd.cells], {c.document: int(c.kind) for c in nd.cells})
    session.open_notebook(nb, params.cell_text_documents)
    scheduler.schedule(nd.uri)


def notebook_did_change(session: Session, scheduler: Scheduler,
                        params: lsp.DidChangeNotebookDocumentParams) -> None:
    nb = session.notebooks.get(params.notebook_document.uri)
    if nb is None:
        return
    nb.version = params.notebook_document.version
    ch = params.change
    if ch.cells is not None:
        st = ch.cells.structure
        if st is not None:
            arr = st.array
            new_cells = [c.document for c in (arr.cells or [])]
            for c in arr.cells or []:
                nb.kinds[c.document] = int(c.kind)
            removed = nb.cells[arr.start:arr.start + arr.delete_count]
            nb.cells[arr.start:arr.start + arr.delete_count] = new_cells
            for c in st.did_close or []:
                session.docs.pop(c.uri, None)
            scheduler.clear_diagnostics([c.uri for c in st.did_close or [] if c.uri in removed])
            session.open_cells(nb, st.did_open or [])
        for c in ch.cells.data or []:
            nb.kinds[c.document] = int(c.kind)
        for tc in ch.cells.text_content or []:
            doc = session.docs.get(tc.document.uri)
            if doc is None:
                continue
            for change in tc.changes:
                doc.apply_change(getattr(change, "range", None), change.text, session.caps.encoding)
            doc.version = tc.document.version
    scheduler.lenses.typed(nb.uri)
    scheduler.changed(nb.uri)


def notebook_did_close(session: Session, scheduler: Scheduler,
                       params: lsp.DidCloseNotebookDocumentParams) -> None:
    if params.notebook_document.uri in session.notebooks:
        scheduler.close(params.notebook_document.uri)
