"""The server checks a document against the workspace's jax release (issue 43), chosen as
``check`` chooses it: the ``jaxVersion`` setting, else a pyproject's ``jax-version``, else the
workspace's ``.venv``, else pallas-lsp's own, else the newest. A change of the choice (settings,
a pyproject.toml seen changing) re-analyses the open documents; the choice is logged and shown
in the hover of a finding. CLI's side: tests/test_release_choice_check.py."""
from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types as lsp

from pallas_lsp.lowering import tables
from tests.lsp.conftest import diagnostics, open_doc
from tests.lsp.test_settings_security import start, stop
from tests.test_releases import fake_venv

# `jnp.empty` reached from a TPU kernel through a helper: `empty` has no Mosaic TPU rule in
# 0.12.0.1 (NotImplementedError, PAL401), while 0.10.2 lowers jnp.empty as a broadcast.
HELPER_EMPTY = '''\
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def blank_like(ref):
    return jnp.empty(ref.shape, ref.dtype)


@functools.partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                   compiler_params=pltpu.CompilerParams())
def shift(x_ref, o_ref):
    o_ref[...] = x_ref[...] + blank_like(o_ref)
'''

# A finding whatever the release (a grid axis the launch does not have), to hover.
AXIS_OUT_OF_GRID = '''\
import jax
from jax.experimental import pallas as pl


def scale(x_ref, o_ref):
    o_ref[...] = x_ref[...] * pl.program_id(2)


def run(x):
    return pl.pallas_call(scale, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(4,), interpret=True)(x)
'''


# Each of these servers takes about 16 s from start to shutdown here (the tier rule: over ~5 s is
# slow): scripts/test and CI run them, the fast tier does not.
pytestmark = pytest.mark.slow


def test_the_tables_differ_as_these_tests_assume():
    assert tables("0.12.0.1").unlowered("tpu", "jax.numpy.empty") == {"empty"}
    assert tables("0.10.2").unlowered("tpu", "jax.numpy.empty") == frozenset()


async def _codes_after(client, uri: str, n: int, timeout: float = 20) -> list[str]:
    """The codes of the first publish after the n-th (a re-analysis the test caused)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        got = client.published.get(uri, [])
        if len(got) > n:
            return sorted(str(d.code) for d in got[n][1])
        await asyncio.sleep(0.02)
    raise AssertionError(f"no new diagnostics for {uri}")


def _logged(client) -> list[str]:
    return [m.message for m in client.log_messages if "checking against" in m.message]


@pytest.mark.asyncio
async def test_jax_version_setting_changes_the_lowering_knowledge(tmp_path):
    (tmp_path / "shift.py").write_text(HELPER_EMPTY)
    uri = (tmp_path / "shift.py").as_uri()
    client = await start(tmp_path, {"debounceMs": 0, "jaxVersion": "0.10.2"})
    try:
        open_doc(client, uri, HELPER_EMPTY)
        assert await diagnostics(client, uri, 1) == []  # 0.10.2 lowers jnp.empty
        assert any("jax 0.10.2 (from the jaxVersion setting)" in m for m in _logged(client))
        n = len(client.published[uri])
        client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
            settings={"pallasLsp": {"jaxVersion": "0.12.0.1"}}))
        assert await _codes_after(client, uri, n) == ["PAL401"]
        n = len(client.published[uri])
        client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
            settings={"pallasLsp": {"jaxVersion": "0.10.2"}}))
        assert await _codes_after(client, uri, n) == []  # back again: the engine's memo is not reused
    finally:
        await stop(client)


@pytest.mark.asyncio
async def test_the_setting_wins_over_the_pyproject_and_a_malformed_one_is_told(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\njax-version = "0.12.0.1"\n')
    (tmp_path / "shift.py").write_text(HELPER_EMPTY)
    uri = (tmp_path / "shift.py").as_uri()
    client = await start(tmp_path, {"debounceMs": 0, "jaxVersion": "0.10.2"})
    try:
        open_doc(client, uri, HELPER_EMPTY)
        assert await diagnostics(client, uri, 1) == []
        n = len(client.published[uri])
        client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
            settings={"pallasLsp": {"jaxVersion": "ten"}}))
        assert await _codes_after(client, uri, n) == ["PAL401"]  # ignored: the pyproject's decides
        assert any("jaxVersion" in m.message and "'ten'" in m.message for m in client.messages)
    finally:
        await stop(client)


@pytest.mark.asyncio
async def test_the_workspace_venv_decides_without_a_setting_and_a_pyproject_change_is_seen(tmp_path):
    fake_venv(tmp_path, "0.10.2")
    (tmp_path / "shift.py").write_text(HELPER_EMPTY)
    uri = (tmp_path / "shift.py").as_uri()
    client = await start(tmp_path, {"debounceMs": 0})
    try:
        open_doc(client, uri, HELPER_EMPTY)
        assert await diagnostics(client, uri, 1) == []
        assert any("jax 0.10.2 (from the workspace's .venv)" in m for m in _logged(client))
        n = len(client.published[uri])
        (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\njax-version = "0.12.0.1"\n')
        client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
            lsp.FileEvent(uri=(tmp_path / "pyproject.toml").as_uri(), type=lsp.FileChangeType.Created)]))
        assert await _codes_after(client, uri, n) == ["PAL401"]
    finally:
        await stop(client)


@pytest.mark.asyncio
async def test_a_findings_hover_names_the_release_and_where_it_came_from(tmp_path):
    fake_venv(tmp_path, "0.10.2")
    (tmp_path / "flag.py").write_text(AXIS_OUT_OF_GRID)
    uri = (tmp_path / "flag.py").as_uri()
    client = await start(tmp_path, {"debounceMs": 0})
    try:
        open_doc(client, uri, AXIS_OUT_OF_GRID)
        found = await diagnostics(client, uri, 1)
        assert found
        line = found[0].range.start
        got = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), line))
        assert "Checked against jax 0.10.2 (from the workspace's .venv)." in got.contents.value
        assert "Your environment has jax" not in got.contents.value  # (the old warning, replaced)
    finally:
        await stop(client)


@pytest.mark.asyncio
async def test_the_default_release_is_not_mentioned_in_the_hover(tmp_path):
    (tmp_path / "flag.py").write_text(AXIS_OUT_OF_GRID)
    uri = (tmp_path / "flag.py").as_uri()
    client = await start(tmp_path, {"debounceMs": 0})
    try:
        open_doc(client, uri, AXIS_OUT_OF_GRID)
        found = await diagnostics(client, uri, 1)
        assert found
        got = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri),
                                                                     found[0].range.start))
        assert "Checked against" not in got.contents.value
    finally:
        await stop(client)
