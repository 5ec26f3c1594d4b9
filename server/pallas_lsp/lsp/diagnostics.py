"""textDocument/diagnostic: diagnostics pulled by the client (push clients get them published
by the scheduler)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

if TYPE_CHECKING:
    from .scheduler import Scheduler
    from .session import Session

OPTIONS = lsp.DiagnosticOptions(identifier="pallas-lsp", inter_file_dependencies=True, workspace_diagnostics=False)
NONE = lsp.RelatedFullDocumentDiagnosticReport(items=[])


async def pull_diagnostics(session: Session, scheduler: Scheduler, params: lsp.DocumentDiagnosticParams):
    uri = params.text_document.uri
    if uri not in session.docs:
        return NONE
    a = await scheduler.ensure(session.unit_of(uri))
    if a is None:
        return NONE
    result_id = f"{a.gen}.{session.settings_gen}.{'p' if a.partial else 'f'}"
    if params.previous_result_id == result_id:
        return lsp.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    return lsp.RelatedFullDocumentDiagnosticReport(items=a.diagnostics.get(uri, []), result_id=result_id)
