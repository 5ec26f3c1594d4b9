"""Interpret-readiness in the server: a lens on each compiled launch says whether it would run
under the interpreter that fits it, and "Debug on CPU" rewrites it to run there."""
from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.conftest import DATA
from tests.lsp.conftest import SERVER, change, diagnostics, open_client, open_doc

# A Mosaic GPU kernel (plgpu.kernel, compiled) calling an inline_mgpu function: under GPU
# interpret params it would fail; with inline_mgpu="ignore" it runs (checked under JAX: the
# oracle test of the same rewrite is tests/oracle/test_what_if.py). Real Neovim and real VS Code
# open the same file (tests/editors, clients/vscode/test/e2e).
KERNEL = (DATA / "what_if" / "what_if_kernel.py").read_text()
LAUNCH_LINE = 17  # 0-based line of `return plgpu.kernel(...)`


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def vscode(lsp_client: LanguageClient):
    await open_client(lsp_client, "vscode")
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_lens_counts_blockers_and_action_rewrites_the_launch(vscode):
    uri = "file:///tmp/what_if_kernel.py"
    open_doc(vscode, uri, KERNEL)
    assert await diagnostics(vscode, uri, 1) == []  # compiled: nothing fails as written
    lenses = await vscode.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri)))
    titles = {(lens.range.start.line, lens.command.title) for lens in lenses}
    assert (LAUNCH_LINE, "GPU interpret: 1 blocker (fence line 14)") in titles, titles
    assert (20, "GPU interpret: ready") in titles, titles
    blocker = next(lens for lens in lenses if lens.command.title.startswith("GPU interpret: 1"))
    (loc,) = blocker.command.arguments[2]
    assert loc["uri"] == uri and loc["range"]["start"]["line"] == 13

    actions = await vscode.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), lsp.Range(lsp.Position(LAUNCH_LINE, 4), lsp.Position(LAUNCH_LINE, 4)),
        lsp.CodeActionContext([])))
    (debug,) = [a for a in actions if a.title.startswith("Debug on CPU")]
    assert debug.kind == lsp.CodeActionKind.RefactorRewrite
    (edit,) = debug.edit.changes[uri]
    lines = KERNEL.splitlines(keepends=True)
    fixed = "".join(lines[:edit.range.start.line]) + edit.new_text + "".join(lines[edit.range.end.line:])
    assert 'interpret=plgpu.InterpretGPUParams(inline_mgpu="ignore")' in fixed
    # The rewritten program has no finding left.
    from pallas_lsp.rules import analyse

    assert analyse(fixed, "/tmp/what_if_fixed.py").findings == []


@pytest.mark.asyncio
async def test_what_if_can_be_turned_off(vscode):
    vscode.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"pallasLsp": {"whatIf": False}}))
    uri = "file:///tmp/what_if_off.py"
    open_doc(vscode, uri, KERNEL)
    await diagnostics(vscode, uri, 1)
    lenses = await vscode.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri)))
    assert not [lens for lens in lenses if "interpret:" in lens.command.title]
    actions = await vscode.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), lsp.Range(lsp.Position(LAUNCH_LINE, 4), lsp.Position(LAUNCH_LINE, 4)),
        lsp.CodeActionContext([])))
    assert not [a for a in actions if a.title.startswith("Debug on CPU")]


@pytest.mark.asyncio
async def test_what_if_off_in_the_project_file(vscode, tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.pallas-lsp]\nwhat-if = false\n")
    path = tmp_path / "kernel.py"
    path.write_text(KERNEL)
    uri = path.as_uri()
    open_doc(vscode, uri, KERNEL)
    await diagnostics(vscode, uri, 1)
    lenses = await vscode.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri)))
    assert lenses and not [lens for lens in lenses if "interpret:" in lens.command.title]


@pytest.mark.asyncio
async def test_a_returning_inline_mgpu_is_a_blocker_debug_on_cpu_cannot_lift(vscode):
    from tests.analysis.test_assume_interpret import COUNT_CALL_LINE, RETURNING

    uri = "file:///tmp/what_if_returning.py"
    text = RETURNING.format(value="lane_count(x_ref)", interpret="")
    open_doc(vscode, uri, text)
    assert await diagnostics(vscode, uri, 1) == []
    lenses = await vscode.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri)))
    (lens,) = [candidate for candidate in lenses if candidate.command.title.startswith("GPU interpret")]
    assert lens.command.title == f"GPU interpret: 1 blocker (count line {COUNT_CALL_LINE})"
    launch_line = lens.range.start.line
    actions = await vscode.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), lsp.Range(lsp.Position(launch_line, 4), lsp.Position(launch_line, 4)),
        lsp.CodeActionContext([])))
    assert not [a for a in actions if a.title.startswith("Debug on CPU")]
    # Its clean twin (the value computed with jnp) is ready.
    uri = "file:///tmp/what_if_returning_clean.py"
    open_doc(vscode, uri, RETURNING.format(value="jnp.int32(x_ref.shape[0])", interpret=""))
    await diagnostics(vscode, uri, 1)
    lenses = await vscode.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri)))
    assert "GPU interpret: ready" in {lens.command.title for lens in lenses}


@pytest.mark.asyncio
async def test_tpu_setter_quick_fix_through_the_server(vscode):
    from pathlib import Path

    from tests.lsp.test_server import apply_lsp_edits

    example = (Path(__file__).resolve().parents[2]
               / "server/pallas_lsp/kinds/inline_mgpu_p_does_not_support_discharge/examples/PAL003")
    text = (example / "invalid_07_pl_kernel_forced_tpu_shared_params.py").read_text()
    uri = "file:///tmp/tpu_setter_fix.py"
    open_doc(vscode, uri, text)
    (d,) = await diagnostics(vscode, uri, 1)
    assert d.code == "PAL003" and d.range.start.line == 20
    actions = await vscode.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), d.range, lsp.CodeActionContext([d])))
    (fix,) = [a for a in actions if a.title.startswith("Interpret it as a Mosaic GPU kernel")]
    fixed = apply_lsp_edits(text, fix.edit.changes[uri], vscode.encoding)
    assert 'with plgpu.force_gpu_interpret_mode(plgpu.InterpretGPUParams(inline_mgpu="ignore")):' in fixed
    from tests.lsp.conftest import change

    change(vscode, uri, 2, None, fixed)
    assert await diagnostics(vscode, uri, 2) == []


# The other way round: interpreted TPU launches (debugged on a laptop) and what the chip would
# reject once compiled (--assume-compiled tpu). The int8 matmul into float32 is what a TPU v5e
# refused (tests/data/chip/labels.json, corpus-tpu's matmul__int8_f32_acc.py); the (8, 100) block
# is what JAX's TPU lowering refuses (the oracle lowers it for tpu on a CPU).
COMPILED_TPU = (DATA / "what_if" / "compiled_tpu_kernel.py").read_text()


@pytest.mark.asyncio
async def test_compiled_lens_lists_what_the_chip_would_reject(vscode):
    uri = "file:///tmp/compiled_tpu_kernel.py"
    open_doc(vscode, uri, COMPILED_TPU)
    assert await diagnostics(vscode, uri, 1) == []  # interpreted: nothing fails as written
    lenses = await vscode.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri)))
    compiled = {(lens.range.start.line, lens.command.title) for lens in lenses
                if lens.command.title.startswith("TPU v5e compiled")}
    assert compiled == {(11, "TPU v5e compiled: 1 blocker (dot line 8)"),
                        (23, "TPU v5e compiled: 1 blocker (tpu-block-tiling line 28)"),
                        (38, "TPU v5e compiled: ready")}, compiled
    blocker = next(lens for lens in lenses if lens.command.title.startswith("TPU v5e compiled: 1 blocker (dot"))
    (loc,) = blocker.command.arguments[2]
    assert loc["range"]["start"]["line"] == 7


@pytest.mark.asyncio
async def test_compiled_lens_says_the_generation_chosen(vscode):
    vscode.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"pallasLsp": {"tpuGeneration": "v6e"}}))
    uri = "file:///tmp/compiled_tpu_v6e.py"
    open_doc(vscode, uri, COMPILED_TPU)
    await diagnostics(vscode, uri, 1)
    lenses = await vscode.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri)))
    titles = {lens.command.title for lens in lenses if lens.command.title.startswith("TPU v6e compiled")}
    # Nobody ran the int8 matmul on a v6e: nothing is claimed there; JAX's own lowering check holds.
    assert titles == {"TPU v6e compiled: ready", "TPU v6e compiled: 1 blocker (tpu-block-tiling line 28)"}, titles


@pytest.mark.asyncio
async def test_what_if_lenses_wait_for_typing_to_pause_then_the_client_is_asked_to_refresh(vscode):
    """Each what-if lens is a whole-module analysis in another mode: asked for while the user
    types, it is left out (the budget lens, cheap, is not) and the server asks the client to ask
    again once typing has paused; then the lenses are there."""
    import asyncio

    uri = "file:///tmp/compiled_tpu_typing.py"
    open_doc(vscode, uri, COMPILED_TPU)
    await diagnostics(vscode, uri, 1)
    refreshes = vscode.lens_refreshes
    line = COMPILED_TPU.splitlines().index("def ok(x):")
    change(vscode, uri, 2, lsp.Range(lsp.Position(line, 0), lsp.Position(line, 0)), "# typing\n")
    await diagnostics(vscode, uri, 2)
    lenses = await vscode.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri)))
    assert not [lens for lens in lenses if lens.command.title.startswith("TPU v5e compiled")]
    for _ in range(100):
        if vscode.lens_refreshes > refreshes:
            break
        await asyncio.sleep(0.05)
    assert vscode.lens_refreshes > refreshes
    lenses = await vscode.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri)))
    titles = {(lens.range.start.line, lens.command.title) for lens in lenses}
    assert (39, "TPU v5e compiled: ready") in titles, titles  # (the ok launch, one line lower)
