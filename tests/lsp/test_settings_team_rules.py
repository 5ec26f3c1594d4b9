"""The server's `select`/`ignore` naming a team's own kind (PAL190, declared by a records file's
detection section): checked against the rule set the analysis uses, whether the records come
from the `records` setting (at start, or in the same change as `select`) or from the project's
pyproject.toml; a rule no one declares is still reported (issue 38; the CLI's side:
tests/test_cli_team_rules.py)."""
from __future__ import annotations

import shutil

import pytest
from lsprotocol import types as lsp

from tests.lsp.conftest import diagnostics, open_doc
from tests.lsp.test_settings_security import messages_until, published_after, start, stop
from tests.rules.test_user_record_kind import RECORD
from tests.test_cli_team_rules import OWN_SCRATCH, SHARED_SCRATCH


def _unknown(client) -> list[str]:
    return [m.message for m in client.messages if "unknown rule" in m.message or "no known rule" in m.message]


def _workspace(tmp_path, text: str = SHARED_SCRATCH):
    (tmp_path / "kern.py").write_text(text)
    return (tmp_path / "kern.py").as_uri(), text


@pytest.mark.asyncio
async def test_select_setting_names_the_rule_of_the_records_setting(tmp_path):
    uri, text = _workspace(tmp_path)
    client = await start(tmp_path, {"debounceMs": 0, "records": [str(RECORD)], "select": ["PAL190", "PAL1900"]})
    try:
        open_doc(client, uri, text)
        assert [d.code for d in await diagnostics(client, uri, 1)] == ["PAL190"]
        texts = await messages_until(client, "unknown rule `PAL1900`")  # (still told)
        assert any(t.startswith("pallas-lsp: pallas-lsp setting `select`: unknown rule `PAL1900`") for t in texts)
        assert not [t for t in _unknown(client) if "`PAL190`" in t]
        await client.shutdown_session()
    finally:
        await stop(client)


@pytest.mark.asyncio
async def test_records_and_select_in_the_same_change(tmp_path):
    uri, text = _workspace(tmp_path)
    client = await start(tmp_path, {"debounceMs": 0})
    try:
        open_doc(client, uri, text)
        assert "PAL190" not in [d.code for d in await diagnostics(client, uri, 1)]
        n = len(client.published[uri])
        client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
            settings={"pallasLsp": {"records": [str(RECORD)], "select": ["PAL190"]}}))
        assert await published_after(client, uri, n) == ["PAL190"]
        assert _unknown(client) == []
        await client.shutdown_session()
    finally:
        await stop(client)


@pytest.mark.asyncio
async def test_select_setting_names_the_rule_of_the_projects_records(tmp_path):
    shutil.copy(RECORD, tmp_path / "team.json")
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nrecords = ["team.json"]\nignore = ["PAL203"]\n')
    uri, text = _workspace(tmp_path)
    client = await start(tmp_path, {"debounceMs": 0, "ignore": ["PAL190"]})
    try:
        open_doc(client, uri, text)
        assert await diagnostics(client, uri, 1) == []  # both findings ignored, neither rule unknown
        assert _unknown(client) == []
        n = len(client.published[uri])
        client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
            settings={"pallasLsp": {"ignore": None, "select": ["PAL190"]}}))
        assert await published_after(client, uri, n) == ["PAL190"]
        assert _unknown(client) == []
        await client.shutdown_session()
    finally:
        await stop(client)


@pytest.mark.asyncio
async def test_clean_twin_stays_quiet(tmp_path):
    uri, text = _workspace(tmp_path, OWN_SCRATCH)
    client = await start(tmp_path, {"debounceMs": 0, "records": [str(RECORD)], "select": ["PAL190"]})
    try:
        open_doc(client, uri, text)
        assert await diagnostics(client, uri, 1) == []
        assert _unknown(client) == []
        await client.shutdown_session()
    finally:
        await stop(client)
