"""Cross-module analysis through the server: open only the helper, open only the test module,
edit the helper and see the test module's diagnostics update. The workspace's modules would
leave marker files if imported: they never appear.

The server answers at once with the module on its own, then follows the workspace in the
background and republishes (push) or asks the client to pull again (pull)."""
import asyncio
import shutil

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.conftest import DATA
from tests.lsp.conftest import SERVER, change, open_client, open_doc

WS = DATA / "workspaces" / "kernels_ws"


async def until(client, uri, want, timeout=60.0):
    """Diagnostics codes/lines for ``uri`` once they equal ``want`` (pull: pulled again; push:
    the latest publish)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    got = None
    while loop.time() < deadline:
        if client.pull:
            report = await client.text_document_diagnostic_async(lsp.DocumentDiagnosticParams(
                text_document=lsp.TextDocumentIdentifier(uri)))
            diags = list(getattr(report, "items", []) or [])
        else:
            pubs = client.published.get(uri, [])
            diags = list(pubs[-1][1]) if pubs else []
        got = sorted((d.code, d.range.start.line) for d in diags)
        if got == want:
            return diags
        await asyncio.sleep(0.1)
    raise AssertionError(f"{uri}: wanted {want}, last got {got}")


@pytest.mark.asyncio
@pytest.mark.parametrize("profile", ["neovim", "vscode"])
async def test_helper_alone_test_alone_and_edits(tmp_path, profile):
    ws = tmp_path / "ws"
    shutil.copytree(WS, ws)
    client = LanguageClient()
    await client.start_io(*SERVER, cwd=str(ws))
    try:
        await open_client(client, profile, root=ws)
        helper = ws / "pkg" / "mgpu_kernels.py"
        test = ws / "tests" / "test_kernels.py"
        open_doc(client, helper.as_uri(), helper.read_text())
        got = await until(client, helper.as_uri(), [("PAL003", 5)])
        assert "test_kernels.py" in got[0].message
        if got[0].related_information:
            assert any(r.location.uri == test.as_uri() for r in got[0].related_information)

        open_doc(client, test.as_uri(), test.read_text())
        await until(client, test.as_uri(), [("PAL001", 11), ("PAL003", 17)])

        # Edit the helper: drop the inline_mgpu call. The test module's diagnostics follow.
        change(client, helper.as_uri(), 2, lsp.Range(lsp.Position(5, 0), lsp.Position(6, 0)), "")
        await until(client, helper.as_uri(), [])
        await until(client, test.as_uri(), [("PAL001", 11)])
        assert sorted(p.name for p in ws.rglob("*") if "IMPORTED" in p.name) == []
        await client.shutdown_session()
    finally:
        if client._server is not None and client._server.returncode is None:
            client._server.kill()  # a failed assertion must not leave the server (and the test) hanging
        await client.stop()


@pytest.mark.asyncio
async def test_code_lens_chain_reaches_the_caller_in_another_module(tmp_path):
    """`build(..., interpret=interpret)` in pkg/kernels.py is interpreted because
    tests/test_kernels.py calls `build(x.shape, x.dtype, interpret=True)`: once the workspace is
    followed, the lens's chain includes that call, in the other file."""
    ws = tmp_path / "ws"
    shutil.copytree(WS, ws)
    client = LanguageClient()
    await client.start_io(*SERVER, cwd=str(ws))
    try:
        await open_client(client, "vscode", root=ws)
        kernels = ws / "pkg" / "kernels.py"
        test = ws / "tests" / "test_kernels.py"
        open_doc(client, kernels.as_uri(), kernels.read_text())
        caller_line = next(i for i, t in enumerate(test.read_text().splitlines()) if "interpret=True" in t
                           and "build(" in t)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        chain = []
        while loop.time() < deadline:
            lenses = await client.text_document_code_lens_async(
                lsp.CodeLensParams(lsp.TextDocumentIdentifier(kernels.as_uri())))
            chain = lenses[0].command.arguments[2] if lenses else []
            if any(loc["uri"] == test.as_uri() for loc in chain):
                break
            await asyncio.sleep(0.2)
        assert chain and chain[0]["uri"] == kernels.as_uri(), chain
        assert any(loc["uri"] == test.as_uri() and loc["range"]["start"]["line"] == caller_line
                   for loc in chain), chain
        await client.shutdown_session()
    finally:
        if client._server is not None and client._server.returncode is None:
            client._server.kill()
        await client.stop()
