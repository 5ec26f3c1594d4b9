"""Hostile records in a workspace, end to end over stdio: a catastrophic messagePattern cannot
freeze explainError or shutdown, a javascript: link never reaches a diagnostic or a hover, and a
record replacing a built-in one is reported to the user."""
import asyncio
import json

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient, make_test_lsp_client

from tests.conftest import CORPUS
from tests.lsp.conftest import SERVER, diagnostics, open_client, open_doc
from tests.records.hostile import BUILTIN_SLUG, hostile_override, only_https

BASIC = (CORPUS / "get_global_interpret_true_basic.py").read_text()
# Each of these takes hours on "a" * 3000 + "!" under Python's backtracking re (lines are cut at
# 4,000 characters before matching, so the "!" must come before that).
CATASTROPHIC = {"evil-nested": r"^((a)+)+$", "evil-alternation": r"^(a|a)*$",
                "evil-slips-past-the-check": r"^(a?){25}a{25}$"}


def _records_file(folder) -> str:
    folder.mkdir(exist_ok=True)
    path = folder / "evil.json"
    records = [{"id": slug, "slug": slug, "errorMessage": "m", "messagePattern": pattern, "errorClass": "E"}
               for slug, pattern in CATASTROPHIC.items()]
    path.write_text(json.dumps(records + [hostile_override()]))
    return str(path)


async def _start(tmp_path, init_options) -> LanguageClient:
    client = make_test_lsp_client()  # records window/showMessage
    await client.start_io(*SERVER)
    await open_client(client, "vscode", init_options=init_options, root=tmp_path)
    return client


async def _stop(client: LanguageClient) -> None:
    server = getattr(client, "_server", None)
    if server is not None and server.returncode is None:
        server.kill()  # a frozen server would never answer shutdown
    await client.stop()


async def _messages_with(client: LanguageClient, needle: str, timeout: float = 20) -> list[str]:
    for _ in range(int(timeout / 0.05)):
        found = [m.message for m in client.messages if needle in m.message]
        if found:
            return found
        await asyncio.sleep(0.05)
    return []


@pytest.mark.asyncio
async def test_explain_error_with_catastrophic_workspace_record_answers_and_shutdown_answers(tmp_path):
    records = _records_file(tmp_path / "records")
    client = await _start(tmp_path, {"debounceMs": 0, "records": [records]})
    try:
        text = "\n".join(["a" * 3000 + "!", "a" * 50,
                          "NotImplementedError: get_global only supports semaphores, got Ref<smem>"])
        res = await asyncio.wait_for(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="pallas-lsp.explainError", arguments=[text])), timeout=30)
        assert "get-global-only-supports-semaphores-got-what" in res["slugs"]
        assert "evil-slips-past-the-check" in res["slugs"]  # loaded, and matched in linear time
        assert "evil-nested" not in res["slugs"] and "evil-alternation" not in res["slugs"]
        only_https(res["markdown"])
        # The refused records are named to the user.
        assert await _messages_with(client, "record 'evil-nested'")
        assert await _messages_with(client, "record 'evil-alternation'")
        await asyncio.wait_for(client.shutdown_session(), timeout=30)
    finally:
        await _stop(client)


@pytest.mark.asyncio
async def test_javascript_link_from_a_workspace_record_reaches_no_diagnostic_or_hover(tmp_path):
    _records_file(tmp_path / "records")
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nrecords = ["records/evil.json"]\n')
    kernel = tmp_path / "k.py"
    kernel.write_text(BASIC)
    client = await _start(tmp_path, {"debounceMs": 0})
    try:
        uri = kernel.as_uri()
        open_doc(client, uri, BASIC)
        (diag,) = await diagnostics(client, uri, 1)
        assert diag.code == "PAL001"
        assert diag.code_description is None  # the overriding record's only link was javascript:
        hover = await asyncio.wait_for(client.text_document_hover_async(lsp.HoverParams(
            lsp.TextDocumentIdentifier(uri), diag.range.start)), timeout=30)
        assert hover is not None and "click" in hover.contents.value  # the workspace record's text ...
        only_https(hover.contents.value)  # ... without its links
        replaced = await _messages_with(client, f"record '{BUILTIN_SLUG}' replaces the built-in record")
        assert replaced and "evil.json" in replaced[0], [m.message for m in client.messages]
        dropped = await _messages_with(client, "not an https: link")
        assert dropped and "githubUrl" in dropped[0]
        await asyncio.wait_for(client.shutdown_session(), timeout=30)
    finally:
        await _stop(client)


@pytest.mark.asyncio
async def test_builtin_record_link_is_still_the_diagnostic_href(tmp_path):
    client = await _start(tmp_path, {"debounceMs": 0})
    try:
        uri = (tmp_path / "k.py").as_uri()
        open_doc(client, uri, BASIC)
        (diag,) = await diagnostics(client, uri, 1)
        assert diag.code_description is not None
        assert diag.code_description.href.startswith("https://github.com/jax-ml/jax/blob/")
        await asyncio.wait_for(client.shutdown_session(), timeout=30)
    finally:
        await _stop(client)
