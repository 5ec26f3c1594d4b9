import pytest
from lsprotocol import types as lsp
from pytest_lsp import client_capabilities

from tests.conftest import CORPUS
from tests.lsp.conftest import PROFILES, change, diagnostics, encode_col, open_doc

BASIC = (CORPUS / "get_global_interpret_true_basic.py").read_text()
GPU = (CORPUS / "inline_mgpu_gpu_interpret_params.py").read_text()
GRID = (CORPUS / "dynamic_grid_jit_arg_gpu_params.py").read_text()


@pytest.mark.asyncio
async def test_diagnostic_fields_and_range(client):
    uri = "file:///tmp/pallas_basic.py"
    open_doc(client, uri, BASIC)
    (d,) = await diagnostics(client, uri, 1)
    assert d.source == "pallas-lsp" and d.code == "PAL001"
    assert d.severity == lsp.DiagnosticSeverity.Error
    line = BASIC.splitlines()[8]
    col = line.index("pl.get_global")
    assert (d.range.start.line, d.range.start.character) == (8, col)
    assert d.code_description is None or d.code_description.href.startswith("https://github.com/jax-ml/jax/blob/")
    # A diagnostic carries no fix edits (a keystroke builds none); the code action builds them.
    assert d.data["code"] == "PAL001" and "fixes" not in d.data
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), d.range, lsp.CodeActionContext([d])))
    assert any("scratch" in a.title and a.edit is not None for a in actions)
    if d.related_information is not None:
        assert {r.location.range.start.line for r in d.related_information} >= {18}


@pytest.mark.asyncio
@pytest.mark.parametrize("prefix", ["é = 'naïve'; ", "s = '😀🐍'; "])
async def test_positions_with_non_ascii_and_astral_text(client, prefix):
    text = BASIC.replace("    sem = pl.get_global(", f"    {prefix}sem = pl.get_global(")
    uri = "file:///tmp/pallas_unicode.py"
    open_doc(client, uri, text)
    (d,) = await diagnostics(client, uri, 1)
    line = text.splitlines()[8]
    col = line.index("pl.get_global")
    end = line.index("REGULAR)") + len("REGULAR)")
    assert d.range.start.character == encode_col(line, col, client.encoding)
    assert d.range.end.character == encode_col(line, end, client.encoding)
    # A hover at the reported position finds the construct (round trip through the encoding).
    h = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), d.range.start))
    assert h is not None and "get_global" in h.contents.value


@pytest.mark.asyncio
async def test_hover_explains_finding_launch_and_interpret(client):
    uri = "file:///tmp/pallas_hover.py"
    open_doc(client, uri, BASIC)
    await diagnostics(client, uri, 1)
    h = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(8, 16)))
    text = h.contents.value
    assert "What will happen" in text and "No ir_type_handler" in text
    assert "How to fix" in text and "interpret=True" in text and "verified on jax" in text
    h = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(15, 14)))
    assert h is not None and "launches `add_one_kernel`" in h.contents.value
    h = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(18, 19)))
    assert h is not None and "generic interpreter" in h.contents.value


async def _apply_and_recheck(client, uri, text, action, version):
    edits = action.edit.changes[uri]
    # Apply edits bottom-up in the client's encoding via full-text replacement.
    new_text = apply_lsp_edits(text, edits, client.encoding)
    change(client, uri, version, None, new_text)
    return new_text, await diagnostics(client, uri, version)


def apply_lsp_edits(text, edits, encoding):
    lines = text.split("\n")

    def offset(pos):
        line = lines[pos.line] if pos.line < len(lines) else ""
        units = 0
        for i, ch in enumerate(line):
            if units >= pos.character:
                return sum(len(prev_line) + 1 for prev_line in lines[:pos.line]) + i
            units += (len(ch.encode("utf-8")) if encoding == "utf-8"
                      else (2 if ord(ch) > 0xFFFF and encoding == "utf-16" else 1))
        return sum(len(prev_line) + 1 for prev_line in lines[:pos.line]) + len(line)

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        a, b = offset(e.range.start), offset(e.range.end)
        text = text[:a] + e.new_text + text[b:]
    return text


@pytest.mark.asyncio
@pytest.mark.parametrize("source,title", [
    (GPU, 'Add inline_mgpu="ignore"'),
    (GRID, "Make `num_steps` static"),
    (BASIC, "Pass the semaphore to the kernel as scratch"),
    (BASIC, "Ignore PAL001 on this line"),
])
async def test_quick_fix_edits_remove_the_finding(client, source, title):
    uri = "file:///tmp/pallas_fix.py"
    open_doc(client, uri, source)
    (d,) = await diagnostics(client, uri, 1)
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), d.range, lsp.CodeActionContext(diagnostics=[d])))
    chosen = [a for a in actions if a.title.startswith(title)]
    assert chosen, [a.title for a in actions]
    _, after = await _apply_and_recheck(client, uri, source, chosen[0], 2)
    assert [x for x in after if x.code == d.code] == []


@pytest.mark.asyncio
async def test_code_actions_recompute_when_client_drops_data(client):
    uri = "file:///tmp/pallas_nodata.py"
    open_doc(client, uri, GPU)
    (d,) = await diagnostics(client, uri, 1)
    d.data = None
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), d.range, lsp.CodeActionContext(diagnostics=[d])))
    assert any(a.title.startswith('Add inline_mgpu="ignore"') for a in actions)
    fix_all = await client.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), d.range,
        lsp.CodeActionContext(diagnostics=[], only=["source.fixAll.pallas-lsp"])))
    assert [a.kind for a in fix_all] == ["source.fixAll.pallas-lsp"]


@pytest.mark.asyncio
async def test_code_lens_shows_context(client):
    uri = "file:///tmp/pallas_lens.py"
    open_doc(client, uri, GPU)
    await diagnostics(client, uri, 1)
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri)))
    assert [lens.command.title for lens in lenses] == ["GPU interpret · kernel `kernel` · 1 problem"]
    assert lenses[0].range.start.line == 19


@pytest.mark.asyncio
async def test_code_lens_command_shows_the_context_chain(client):
    """Clicking the lens: its command carries the launch and its context chain (the line that
    decides the mode, the kernel); run on the server, it moves a client that can show documents
    to the line deciding the mode (window/showDocument) and answers with the chain."""
    shown = []

    def show_document(params: lsp.ShowDocumentParams):
        shown.append(params)
        return lsp.ShowDocumentResult(success=True)

    client.protocol.fm.features[lsp.WINDOW_SHOW_DOCUMENT] = show_document
    uri = "file:///tmp/pallas_lens_chain.py"
    open_doc(client, uri, BASIC)
    await diagnostics(client, uri, 1)
    (lens,) = await client.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri)))
    assert lens.command.command == "pallas-lsp.showLaunch"
    target, position, chain = lens.command.arguments
    lines = BASIC.splitlines()
    assert target == uri and position == {"line": 15, "character": lines[15].index("pl.pallas_call")}
    # The launch, then `interpret=True` (what decides its mode), then the kernel's def.
    assert [(loc["uri"], loc["range"]["start"]["line"]) for loc in chain] == [(uri, 15), (uri, 18), (uri, 7)]
    assert chain[1]["range"]["start"]["character"] in (lines[18].index("interpret"), lines[18].index("True"))
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command=lens.command.command, arguments=lens.command.arguments))
    assert result["locations"] == chain
    caps = client_capabilities(PROFILES[client.profile]).window
    if caps and caps.show_document and caps.show_document.support:  # Neovim, VS Code; not Emacs
        (sd,) = shown
        assert sd.uri == uri and sd.selection.start.line == 18 and sd.take_focus
    else:
        assert shown == []


@pytest.mark.asyncio
async def test_syntax_error_mid_edit_keeps_findings(client):
    uri = "file:///tmp/pallas_edit.py"
    open_doc(client, uri, BASIC)
    assert [d.code for d in await diagnostics(client, uri, 1)] == ["PAL001"]
    # Type an unfinished call inside the kernel: its block no longer parses.
    change(client, uri, 2, lsp.Range(lsp.Position(11, 0), lsp.Position(11, 0)), "    foo(\n")
    codes = sorted(d.code for d in await diagnostics(client, uri, 2))
    assert codes == ["PAL001", "PAL900"]
    # Finish the edit.
    change(client, uri, 3, lsp.Range(lsp.Position(11, 7), lsp.Position(11, 8)), "()\n")
    assert [d.code for d in await diagnostics(client, uri, 3)] == ["PAL001"]


@pytest.mark.asyncio
async def test_incremental_edits_sequence(client):
    uri = "file:///tmp/pallas_seq.py"
    open_doc(client, uri, BASIC)
    await diagnostics(client, uri, 1)
    # interpret=True -> interpret=False: the finding goes away.
    line = BASIC.splitlines()[18]
    col = line.index("True")
    change(client, uri, 2, lsp.Range(lsp.Position(18, col), lsp.Position(18, col + 4)), "False")
    assert await diagnostics(client, uri, 2) == []
    change(client, uri, 3, lsp.Range(lsp.Position(18, col), lsp.Position(18, col + 5)), "True")
    (d,) = await diagnostics(client, uri, 3)
    assert d.range.start.line == 8
    # Insert two lines above: the finding moves.
    change(client, uri, 4, lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)), "# one\n# two\n")
    (d,) = await diagnostics(client, uri, 4)
    assert d.range.start.line == 10


@pytest.mark.asyncio
async def test_explain_command(client):
    res = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="pallas-lsp.explainError",
        arguments=["NotImplementedError: inline_mgpu_p does not support discharge."]))
    assert res["slugs"] == ["inline-mgpu-p-does-not-support-discharge"]
    assert "inline_mgpu" in res["markdown"]


@pytest.mark.asyncio
async def test_requests_for_unopened_documents_answer_empty(client):
    uri = "file:///tmp/never_opened.py"
    h = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(0, 0)))
    assert h is None
    acts = await client.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)),
        lsp.CodeActionContext(diagnostics=[])))
    assert not acts
