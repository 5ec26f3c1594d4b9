"""Settings from initializationOptions, workspace/configuration and didChangeConfiguration."""
import asyncio

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.conftest import CORPUS
from tests.lsp.conftest import SERVER, diagnostics, open_client, open_doc

BASIC = (CORPUS / "get_global_interpret_true_basic.py").read_text()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def vscode(lsp_client: LanguageClient):
    await open_client(lsp_client, "vscode", init_options={"debounceMs": "soon", "codeLens": False,
                                                          "ignore": ["PAL001"]})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_bad_setting_is_reported_and_defaulted(vscode):
    for _ in range(200):
        if vscode.messages:
            break
        await asyncio.sleep(0.02)
    assert any("debounceMs" in m.message for m in vscode.messages)
    uri = "file:///tmp/settings_case.py"
    open_doc(vscode, uri, BASIC)
    assert await diagnostics(vscode, uri, 1) == []  # PAL001 ignored by the initialization options
    lenses = await vscode.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri)))
    assert not lenses


@pytest.mark.asyncio
async def test_did_change_configuration_applies_without_restart(vscode):
    uri = "file:///tmp/settings_case2.py"
    open_doc(vscode, uri, BASIC)
    assert await diagnostics(vscode, uri, 1) == []
    n = len(vscode.published.get(uri, []))
    vscode.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings={"pallasLsp": {"ignore": [], "codeLens": {"enable": True}}}))
    for _ in range(500):
        if len(vscode.published.get(uri, [])) > n and vscode.published[uri][-1][1]:
            break
        await asyncio.sleep(0.02)
    assert [d.code for d in vscode.published[uri][-1][1]] == ["PAL001"]
    lenses = await vscode.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri)))
    assert len(lenses) == 1


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def nvim_with_config(lsp_client: LanguageClient):
    lsp_client.set_configuration({"ignore": ["PAL001"]}, section="pallasLsp")
    await open_client(lsp_client, "neovim")
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_workspace_configuration_is_pulled(nvim_with_config):
    client = nvim_with_config
    uri = "file:///tmp/settings_case3.py"
    await asyncio.sleep(0.3)  # the server asks for its configuration after `initialized`
    open_doc(client, uri, BASIC)
    assert await diagnostics(client, uri) == []


@pytest.mark.asyncio
async def test_pyproject_and_watched_records(tmp_path):
    """[tool.pallas-lsp] above the file applies; editing it on disk and telling the server
    (didChangeWatchedFiles) re-analyses open documents."""
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nignore = ["PAL001"]\n')
    kernel = tmp_path / "k.py"
    kernel.write_text(BASIC)
    client = LanguageClient()
    await client.start_io(*SERVER)
    try:
        await open_client(client, "vscode")
        uri = kernel.as_uri()
        open_doc(client, uri, BASIC)
        assert await diagnostics(client, uri, 1) == []
        (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nignore = []\n')
        n = len(client.published[uri])
        client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
            lsp.FileEvent(uri=(tmp_path / "pyproject.toml").as_uri(), type=lsp.FileChangeType.Changed)]))
        for _ in range(500):
            if len(client.published[uri]) > n:
                break
            await asyncio.sleep(0.02)
        assert [d.code for d in client.published[uri][-1][1]] == ["PAL001"]
        await client.shutdown_session()
    finally:
        await client.stop()


def test_null_resets_every_setting_to_its_default():
    from dataclasses import fields

    from pallas_lsp.lsp.settings import _KEYS, Settings, parse_settings

    changed = Settings(select=("PAL001",), ignore=("PAL002",), records=("/r.json",), debounce_ms=7, code_lens=False,
                       fix_actions=False, ignore_comment_actions=False, log_level="debug", cross_module=False,
                       python_environment="/env", max_file_bytes=2000, backends=("tpu",), what_if=False,
                       unsafe_fixes=True, jax_version="0.10.2", tpu_generation="v5e")
    assert all(getattr(changed, f.name) != f.default for f in fields(Settings))
    flat_keys = [k for k, v in _KEYS.items() if v is not None and k != "debounce_ms"]
    reset, problems = parse_settings({k: None for k in flat_keys}, changed)
    assert reset == Settings() and problems == []


def test_rule_settings_are_kept_as_written_for_the_server_to_check():
    """Which rules exist depends on the records the analysis loads (this change's `records`, a
    project's pyproject.toml): the server checks `select`/`ignore` against that rule set
    (tests/lsp/test_settings_team_rules.py, test_settings_security.py)."""
    from pallas_lsp.lsp.settings import parse_settings

    s, problems = parse_settings({"select": ["PAL190", "NOPE999"], "ignore": "PAL00", "records": ["/team.json"]})
    assert (s.select, s.ignore, s.records, problems) == (("PAL190", "NOPE999"), ("PAL00",), ("/team.json",), [])
    s, problems = parse_settings({"select": [3]})
    assert s.select is None and problems == ["pallas-lsp setting `select` must be a list of strings; using the default"]


def test_unsafe_fixes_setting():
    from pallas_lsp.lsp.settings import Settings, parse_settings

    assert Settings().unsafe_fixes is False
    assert parse_settings({"unsafeFixes": True})[0].unsafe_fixes is True
    s, problems = parse_settings({"unsafeFixes": "yes"})
    assert s.unsafe_fixes is False and problems == [
        "pallas-lsp setting `unsafeFixes` must be true or false; using the default"]


@pytest.mark.asyncio
async def test_the_backends_setting_can_say_the_code_runs_on_cpu_hosts(vscode):
    # A compiled launch in a script: nothing fails until the code is said to run on a CPU host.
    text = BASIC.replace("        interpret=True,\n", "")
    uri = "file:///tmp/settings_backends_cpu.py"
    open_doc(vscode, uri, text)
    assert await diagnostics(vscode, uri, 1) == []
    n = len(vscode.published.get(uri, []))
    vscode.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings={"pallasLsp": {"backends": ["cpu"]}}))
    for _ in range(500):
        if len(vscode.published.get(uri, [])) > n and vscode.published[uri][-1][1]:
            break
        await asyncio.sleep(0.02)
    (d,) = vscode.published[uri][-1][1]
    assert d.code == "PAL510" and "the `backends` setting lists cpu" in d.message
