"""End-to-end over stdio with pytest-lsp, parameterised over real clients' capability
profiles: Neovim 0.11 (pull diagnostics, utf-8), Emacs 29 (push, utf-32) and VS Code
(push, utf-16)."""
import asyncio
import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

PROFILES = {
    "neovim": "neovim@v0.11.0",
    "emacs": "emacs@v29.1",
    "vscode": "visual-studio-code",
}
SERVER = [sys.executable, "-m", "pallas_lsp", "serve"]


async def open_client(lsp_client: LanguageClient, profile: str, init_options=None, caps=None, root=None):
    lsp_client.published = {}  # uri -> list of (version, diagnostics)

    def _published(params: lsp.PublishDiagnosticsParams):
        lsp_client.diagnostics[params.uri] = params.diagnostics
        lsp_client.published.setdefault(params.uri, []).append((params.version, params.diagnostics))

    # Replace the default handler so each publish is kept with its version.
    lsp_client.protocol.fm.features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _published
    lsp_client.registrations = []
    lsp_client.protocol.fm.features.setdefault(lsp.CLIENT_REGISTER_CAPABILITY,
                                               lambda params: lsp_client.registrations.append(params))
    lsp_client.lens_refreshes = 0

    def _lens_refresh(params):
        lsp_client.lens_refreshes += 1

    lsp_client.protocol.fm.features.setdefault(lsp.WORKSPACE_CODE_LENS_REFRESH, _lens_refresh)

    capabilities = caps or client_capabilities(PROFILES[profile])
    result = await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=capabilities, initialization_options=init_options or {"debounceMs": 0},
        root_uri=(root or Path.cwd()).as_uri()))
    lsp_client.profile = profile
    lsp_client.pull = bool(capabilities.text_document and capabilities.text_document.diagnostic)
    lsp_client.encoding = str(result.capabilities.position_encoding.value
                              if hasattr(result.capabilities.position_encoding, "value")
                              else result.capabilities.position_encoding or "utf-16")
    return result


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), params=list(PROFILES))
async def client(request, lsp_client: LanguageClient):
    await open_client(lsp_client, request.param)
    yield
    await lsp_client.shutdown_session()


def open_doc(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))


def change(client: LanguageClient, uri: str, version: int, rng: lsp.Range | None, text: str) -> None:
    ev = (lsp.TextDocumentContentChangePartial(range=rng, text=text) if rng is not None
          else lsp.TextDocumentContentChangeWholeDocument(text=text))
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=version), [ev]))


async def diagnostics(client: LanguageClient, uri: str, version: int | None = None, timeout: float = 20):
    """The diagnostics for the document's current version, pull or push as the client does."""
    if client.pull:
        report = await client.text_document_diagnostic_async(lsp.DocumentDiagnosticParams(
            text_document=lsp.TextDocumentIdentifier(uri)))
        return list(report.items)
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        for v, diags in reversed(client.published.get(uri, [])):
            if version is None or v == version:
                return list(diags)
        await asyncio.sleep(0.02)
    raise AssertionError(f"no diagnostics for {uri} version {version}")


def encode_col(line: str, col: int, encoding: str) -> int:
    head = line[:col]
    if encoding == "utf-8":
        return len(head.encode("utf-8"))
    if encoding == "utf-16":
        return len(head.encode("utf-16-le")) // 2
    return col
