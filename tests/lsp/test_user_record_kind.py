"""In the server: a kind a user adds as data (a records file with a detection section, named by
the `records` setting) gets its diagnostic, its hover drawn from the record and its quick fix."""
from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, diagnostics, open_client, open_doc
from tests.rules.test_user_record_kind import ERROR_LINE, PROGRAM, RECORD

TEXT = PROGRAM.read_text()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def vscode(lsp_client: LanguageClient):
    await open_client(lsp_client, "vscode", init_options={"debounceMs": 0, "records": [str(RECORD)]})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_data_kind_diagnostic_hover_and_fix(vscode):
    uri = PROGRAM.as_uri()
    open_doc(vscode, uri, TEXT)
    (d,) = [d for d in await diagnostics(vscode, uri, 1) if d.code == "PAL190"]
    line = TEXT.splitlines()[ERROR_LINE - 1]
    assert d.range.start.line == ERROR_LINE - 1 and d.range.start.character == line.index('"core"')
    assert "run_scoped_p with collective axes is not supported" in d.message

    hover = await vscode.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), d.range.start))
    assert hover is not None
    text = hover.contents.value
    # Drawn from the record: its documentation, its solutions and its example fix.
    assert "allocates run_scoped buffers per simulated core" in text
    assert "Allocate the scratch per core" in text
    assert "team-run-scoped-collective-axes-tpu-interpret" in text

    actions = await vscode.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), d.range, lsp.CodeActionContext([d])))
    (fix,) = [a for a in actions if a.title.startswith("Drop `collective_axes=`")]
    (edits,) = fix.edit.changes.values()
    lines = TEXT.splitlines(keepends=True)
    offset = lambda p: sum(len(t) for t in lines[:p.line]) + p.character  # noqa: E731 (ASCII text)
    fixed = TEXT
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        fixed = fixed[:offset(e.range.start)] + e.new_text + fixed[offset(e.range.end):]
    assert "collective_axes" not in fixed
    vscode.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2), [lsp.TextDocumentContentChangeWholeDocument(fixed)]))
    assert [d for d in await diagnostics(vscode, uri, 2) if d.code == "PAL190"] == []
