"""Issue 38's launch-context shapes through the real language server: a mode set in a helper
(PAL108, in the module and in another module of the workspace; a launch built in a method; a
test method under its setUp's force_ block), pl.kernel built before the
force_ block that applies it (PAL511, with the fix that moves the build in), and a launch nested
in a kernel that closes over its Refs (PAL513); each on its line, each clean twin quiet."""
from __future__ import annotations

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.analysis import test_contexts_setters as setters
from tests.analysis import test_program
from tests.analysis.program_cases import expected
from tests.lsp.conftest import SERVER, open_client, open_doc
from tests.lsp.test_cross_module import until

SHAPES = [  # (failing case, its clean twin)
    ("set_in_a_helper_two_calls_down", "set_in_a_helper_called_after_the_build"),
    ("pl_kernel_built_earlier_in_the_function", "pl_kernel_built_earlier_moved_in"),
    ("nested_launch_reads_outer_scratch", "nested_launch_given_the_value"),
    # built in a method of an instance made in main, the mode set by a module helper chain
    ("method_calls_a_module_helper_that_sets", "method_sets_after_the_build"),
    # a test method run under the force_ block its class's setUp enters (TPU mode: runs)
    ("setup_enters_force_for_each_test", "setup_enters_tpu_force_through_a_helper"),
]


@pytest.mark.asyncio
async def test_each_shape_on_its_line_and_its_twin_quiet(tmp_path):
    client = LanguageClient()
    await client.start_io(*SERVER, cwd=str(tmp_path))
    try:
        await open_client(client, "neovim", root=tmp_path)
        assert client.pull  # (pulled: an empty list is the server's answer, not the absence of one)
        for failing, clean in SHAPES:
            for name in (failing, clean):
                text = setters.program(name)
                path = tmp_path / f"{name}.py"
                path.write_text(text)
                open_doc(client, path.as_uri(), text)
                want = [(code, line - 1) for code, line in expected(text)]
                got = await until(client, path.as_uri(), want)
                assert (name == clean) == (want == [])
                if name == "pl_kernel_built_earlier_in_the_function":
                    (diag,) = got
                    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
                        lsp.TextDocumentIdentifier(path.as_uri()), diag.range,
                        lsp.CodeActionContext(diagnostics=[diag])))
                    titles = [a.title for a in actions or [] if isinstance(a, lsp.CodeAction)]
                    assert any(t.startswith("Build `doubler` inside the interpret-mode") for t in titles), titles
        await client.shutdown_session()
    finally:
        if client._server is not None and client._server.returncode is None:
            client._server.kill()
        await client.stop()


@pytest.mark.asyncio
@pytest.mark.parametrize("shift, want", [(test_program._SHIFT, [("PAL108", 16)]),
                                         (test_program._SHIFT_SET_AFTER, [])],
                         ids=["set-before-the-build", "set-after-the-build"])
async def test_a_mode_set_by_a_helper_in_another_module(tmp_path, shift, want):
    (tmp_path / "debug_modes.py").write_text(test_program._DEBUG_MODES)
    path = tmp_path / "shift.py"
    path.write_text(shift)
    client = LanguageClient()
    await client.start_io(*SERVER, cwd=str(tmp_path))
    try:
        await open_client(client, "neovim", root=tmp_path)
        assert client.pull
        open_doc(client, path.as_uri(), shift)
        await until(client, path.as_uri(), want)
        await client.shutdown_session()
    finally:
        if client._server is not None and client._server.returncode is None:
            client._server.kill()
        await client.stop()
