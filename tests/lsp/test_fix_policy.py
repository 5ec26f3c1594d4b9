"""One fix policy for the editor and `check --fix` (issue 38): the editor's fix-all applies the
safe fixes, and the fixes that change what runs only with the `unsafeFixes` setting (as
`check --unsafe-fixes`); such a quick fix is still offered one by one, its title says it changes
what runs, and it is preferred (applied by an editor's auto fix) only when the policy says so."""
from __future__ import annotations

import pytest
from lsprotocol import types as lsp

from pallas_lsp.analysis.fixes import UNSAFE_TITLE_SUFFIX
from pallas_lsp.rules.examples import examples_dir
from tests.lsp.conftest import diagnostics, open_doc
from tests.lsp.test_server import apply_lsp_edits
from tests.lsp.test_settings_security import start, stop

PAL514_EXAMPLES = examples_dir("PAL514")
PAL514 = PAL514_EXAMPLES / "invalid_01_copy_after_commit_pl_kernel.py"
PAL514_CLEAN = PAL514_EXAMPLES / "valid_01_gpu_interpret_params.py"
# A fix that keeps the launch in GPU interpret mode (safe): `inline_mgpu="ignore"`.
SAFE_FIX_CASE = '''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


@plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
def touch(ctx, ref):
    del ctx, ref


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0
    touch(o_ref)


def scale(x):
    return pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=plgpu.InterpretGPUParams())(x)
'''
WHOLE = lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))


async def _fix_all(client, uri: str) -> list[lsp.CodeAction]:
    return list(await client.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), WHOLE, lsp.CodeActionContext([], only=["source.fixAll.pallas-lsp"]))) or ())


async def _quick_fixes(client, uri: str, d: lsp.Diagnostic) -> list[lsp.CodeAction]:
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), d.range, lsp.CodeActionContext([d], only=[lsp.CodeActionKind.QuickFix])))
    return [a for a in actions if not a.title.startswith("Ignore ")]


def _configure(client, **settings) -> None:
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={"pallasLsp": settings}))


@pytest.mark.asyncio
async def test_fix_all_leaves_a_fix_that_changes_what_runs_unless_unsafe_fixes(tmp_path):
    text = PAL514.read_text()
    (tmp_path / "kern.py").write_text(text)
    uri = (tmp_path / "kern.py").as_uri()
    client = await start(tmp_path, {"debounceMs": 0})
    try:
        open_doc(client, uri, text)
        (d,) = await diagnostics(client, uri, 1)
        assert d.code == "PAL514"
        assert await _fix_all(client, uri) == []  # its one fix runs the GPU interpreter instead
        (quick,) = await _quick_fixes(client, uri, d)
        assert quick.title.endswith(UNSAFE_TITLE_SUFFIX) and "InterpretGPUParams" in quick.title
        assert not quick.is_preferred  # (an editor's auto fix would apply it unasked)

        _configure(client, unsafeFixes=True)
        (fix_all,) = await _fix_all(client, uri)
        fixed = apply_lsp_edits(text, fix_all.edit.changes[uri], client.encoding)
        assert "interpret=plgpu.InterpretGPUParams()" in fixed and "interpret=True" not in fixed
        (quick,) = await _quick_fixes(client, uri, d)
        assert quick.title.endswith(UNSAFE_TITLE_SUFFIX) and quick.is_preferred

        _configure(client, unsafeFixes=None)  # (null: the default again)
        assert await _fix_all(client, uri) == []
        await client.shutdown_session()
    finally:
        await stop(client)


@pytest.mark.asyncio
async def test_fix_all_applies_a_safe_fix_and_its_title_says_nothing_more(tmp_path):
    (tmp_path / "kern.py").write_text(SAFE_FIX_CASE)
    uri = (tmp_path / "kern.py").as_uri()
    client = await start(tmp_path, {"debounceMs": 0})
    try:
        open_doc(client, uri, SAFE_FIX_CASE)
        (d,) = await diagnostics(client, uri, 1)
        (fix_all,) = await _fix_all(client, uri)
        fixed = apply_lsp_edits(SAFE_FIX_CASE, fix_all.edit.changes[uri], client.encoding)
        assert 'interpret=plgpu.InterpretGPUParams(inline_mgpu="ignore")' in fixed
        quick = await _quick_fixes(client, uri, d)
        safe = [a for a in quick if a.title.startswith('Add inline_mgpu="ignore"')]
        assert safe and not safe[0].title.endswith(UNSAFE_TITLE_SUFFIX) and safe[0].is_preferred
        await client.shutdown_session()
    finally:
        await stop(client)


@pytest.mark.asyncio
async def test_clean_twin_offers_nothing(tmp_path):
    text = PAL514_CLEAN.read_text()
    (tmp_path / "kern.py").write_text(text)
    uri = (tmp_path / "kern.py").as_uri()
    client = await start(tmp_path, {"debounceMs": 0, "unsafeFixes": True})
    try:
        open_doc(client, uri, text)
        assert await diagnostics(client, uri, 1) == []
        assert await _fix_all(client, uri) == []
        await client.shutdown_session()
    finally:
        await stop(client)
