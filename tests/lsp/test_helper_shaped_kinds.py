"""Issue 38's helper shapes through the real language server: collective run_scoped reached
through a local decorator factory (PAL203) and a TPU memory space on a BlockSpec a helper builds
(PAL117), each on its line with its code, each clean twin quiet."""
from __future__ import annotations

import pytest
from pytest_lsp import LanguageClient

from tests.lsp.conftest import SERVER, open_client, open_doc
from tests.lsp.test_cross_module import until
from tests.rules import test_data_kinds_helpers as shapes

CASES = [  # (name, program, [(code, 0-based line)])
    ("factory_axes", 'AXES = "cores"\n' + shapes.FACTORY, [("PAL203", 10)]),
    ("factory_per_core", "AXES = ()\n" + shapes.FACTORY, []),
    ("spec_smem", shapes.SPEC.replace("SPACE", "pltpu.SMEM"), [("PAL117", 18)]),
    ("spec_gmem", shapes.SPEC.replace("SPACE", "plgpu.GMEM"), []),
]


@pytest.mark.asyncio
async def test_helper_shapes_on_their_lines_and_twins_quiet(tmp_path):
    client = LanguageClient()
    await client.start_io(*SERVER, cwd=str(tmp_path))
    try:
        await open_client(client, "neovim", root=tmp_path)
        assert client.pull
        for name, text, want in CASES:
            path = tmp_path / f"{name}.py"
            path.write_text(text)
            open_doc(client, path.as_uri(), text)
            await until(client, path.as_uri(), want)
        await client.shutdown_session()
    finally:
        if client._server is not None and client._server.returncode is None:
            client._server.kill()
        await client.stop()
