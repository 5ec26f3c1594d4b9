"""The server's settings and workspace configuration as an attacker or an unlucky user writes
them: record paths outside the project (with and without a workspace root), unknown rules in
``select``, and ``null`` to reset a setting."""
import asyncio
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient, client_capabilities, make_test_lsp_client

from tests.conftest import CORPUS
from tests.lsp.conftest import PROFILES, SERVER, diagnostics, open_client, open_doc

BASIC = (CORPUS / "get_global_interpret_true_basic.py").read_text()


def hostile_workspace(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """A workspace whose pyproject.toml names records outside it in every way a path can, and an
    unknown rule as its only `select`. Outside lies a file that is not JSON: read, it would be
    reported as a bad record, telling the workspace that it exists."""
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.json"
    secret.write_text("root:x:0:0\n")
    ws = tmp_path / "ws"
    (ws / "recs").mkdir(parents=True)
    (ws / "link.json").symlink_to(secret)
    (ws / "recs" / "evil.json").symlink_to(secret)
    (ws / "k.py").write_text(BASIC)
    depth = "../" * len(ws.resolve().parts)
    entries = [str(secret), str(outside / "missing.json"), str(outside), "/etc",
               f"{depth}{str(secret).lstrip('/')}", "link.json", "recs"]
    (ws / "pyproject.toml").write_text(
        "[tool.pallas-lsp]\nselect = [\"NOPE999\"]\nrecords = " + repr(entries).replace("'", '"') + "\n")
    refused = entries[:-1] + ["recs/evil.json"]
    return ws, secret, refused


async def start(root: Path | None, init_options: dict | None = None) -> LanguageClient:
    client = make_test_lsp_client()  # records window/showMessage, answers workspace/configuration
    await client.start_io(*SERVER)
    if root is not None:
        await open_client(client, "vscode", init_options=init_options, root=root)
    else:  # no rootUri, no workspace folders: a single file opened on its own
        client.published = {}

        def _published(params: lsp.PublishDiagnosticsParams):
            client.published.setdefault(params.uri, []).append((params.version, params.diagnostics))

        client.protocol.fm.features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _published
        await client.initialize_session(lsp.InitializeParams(
            capabilities=client_capabilities(PROFILES["vscode"]),
            initialization_options=init_options or {"debounceMs": 0}, root_uri=None))
        client.pull = False
    return client


async def stop(client: LanguageClient) -> None:
    """Ends the server even when a failed assertion skipped the shutdown: a test fails, never hangs."""
    try:
        await asyncio.wait_for(client.stop(), 15)
    except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - the assertion that failed is what matters
        pass


async def messages_until(client: LanguageClient, needle: str, timeout: float = 20) -> list[str]:
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        texts = [m.message for m in client.messages]
        if any(needle in t for t in texts):
            return texts
        await asyncio.sleep(0.02)
    raise AssertionError(f"no message with {needle!r}: {[m.message for m in client.messages]}")


@pytest.mark.asyncio
@pytest.mark.parametrize("with_root", [True, False], ids=["rootUri", "no-rootUri"])
async def test_workspace_records_outside_the_project_are_refused_unread(tmp_path, with_root):
    ws, secret, refused = hostile_workspace(tmp_path)
    client = await start(ws if with_root else None)
    try:
        uri = (ws / "k.py").as_uri()
        open_doc(client, uri, BASIC)
        # select = ["NOPE999"] does not turn the rules off.
        assert [d.code for d in await diagnostics(client, uri, 1)] == ["PAL001"]
        pyproject = ws / "pyproject.toml"
        texts = await messages_until(client, "recs/evil.json")
        for entry in refused:
            assert f"pallas-lsp: {pyproject}: records path outside the project: {entry} (refused)" in texts
        assert any(f"{pyproject}: `select`: unknown rule `NOPE999`" in t for t in texts)
        assert any("`select` names no known rule; using the default (all rules)" in t for t in texts)
        await asyncio.sleep(0.3)
        texts = [m.message for m in client.messages]
        # Never read: no record problem, and nothing that tells an existing file from a missing one.
        assert not [t for t in texts if "bad record" in t or "not valid JSON" in t or "not found" in t]
        await client.shutdown_session()
    finally:
        await stop(client)


@pytest.mark.asyncio
async def test_user_settings_records_may_be_anywhere(tmp_path):
    """The user's own records (initializationOptions) are not the workspace's: read as given."""
    ws, secret, _ = hostile_workspace(tmp_path)
    (ws / "pyproject.toml").unlink()
    client = await start(ws, {"debounceMs": 0, "records": [str(secret)]})
    try:
        uri = (ws / "k.py").as_uri()
        open_doc(client, uri, BASIC)
        assert [d.code for d in await diagnostics(client, uri, 1)] == ["PAL001"]
        await messages_until(client, f"bad record file: {secret}")
        await client.shutdown_session()
    finally:
        await stop(client)


async def published_after(client: LanguageClient, uri: str, n: int, timeout: float = 20) -> list[str]:
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        if len(client.published.get(uri, [])) > n:
            return [d.code for d in client.published[uri][-1][1]]
        await asyncio.sleep(0.02)
    raise AssertionError(f"no new diagnostics for {uri}")


@pytest.mark.asyncio
async def test_unknown_select_is_reported_and_null_resets(tmp_path):
    (tmp_path / "k.py").write_text(BASIC)
    client = await start(tmp_path, {"debounceMs": 0, "select": ["NOPE999"]})
    try:
        uri = (tmp_path / "k.py").as_uri()
        open_doc(client, uri, BASIC)
        assert [d.code for d in await diagnostics(client, uri, 1)] == ["PAL001"]  # not every rule off
        texts = await messages_until(client, "unknown rule `NOPE999`")
        assert any(t.startswith("pallas-lsp: pallas-lsp setting `select`: unknown rule `NOPE999`") for t in texts)
        n = len(client.published[uri])
        client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
            settings={"pallasLsp": {"select": ["PAL003"], "ignore": ["PAL002"]}}))
        assert await published_after(client, uri, n) == []
        n = len(client.published[uri])
        # null: back to the default (every rule), not "keep what was set".
        client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
            settings={"pallasLsp": {"select": None, "ignore": None}}))
        assert await published_after(client, uri, n) == ["PAL001"]
        assert not [m.message for m in client.messages if "`select`" in m.message and "NOPE" not in m.message
                    and "no known rule" not in m.message]
        await client.shutdown_session()
    finally:
        await stop(client)
