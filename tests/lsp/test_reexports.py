"""A launcher re-exported by a package's __init__ (``from .square import square``, ``import *``,
``as sq``) reaches the script that imports it from the package, in the server: the helper open
alone shows the script's launch, the script shows where it fails, and editing the script's
mode clears both."""
import shutil

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.conftest import DATA
from tests.lsp.conftest import SERVER, change, open_client, open_doc
from tests.lsp.test_cross_module import until

WS = DATA / "workspaces" / "reexport_ws"


@pytest.mark.asyncio
@pytest.mark.parametrize("profile,package,script", [
    ("neovim", "kernels", "run_square.py"),
    ("vscode", "kernels_star", "run_star.py"),
    ("vscode", "kernels_alias", "run_alias.py"),
    ("neovim", "outer/inner", "run_chain.py"),
    ("vscode", "kernels_mod", "run_module.py"),
    ("neovim", "kernels_glob", "run_glob.py"),
])
async def test_helper_and_script_through_a_package_reexport(tmp_path, profile, package, script):
    ws = tmp_path / "ws"
    shutil.copytree(WS, ws)
    client = LanguageClient()
    await client.start_io(*SERVER, cwd=str(ws))
    try:
        await open_client(client, profile, root=ws)
        helper = ws / package / "helpers.py"
        runner = ws / script
        open_doc(client, helper.as_uri(), helper.read_text())
        (got,) = await until(client, helper.as_uri(), [("PAL001", 5)])
        assert f"{script}:6" in got.message

        open_doc(client, runner.as_uri(), runner.read_text())
        await until(client, runner.as_uri(), [("PAL001", 5)])

        # Compiled instead of interpreted: nothing fails any more, in either module.
        line = runner.read_text().splitlines()[5]
        col = line.index("interpret=True") + len("interpret=")
        change(client, runner.as_uri(), 2, lsp.Range(lsp.Position(5, col), lsp.Position(5, col + 4)), "False")
        await until(client, runner.as_uri(), [])
        await until(client, helper.as_uri(), [])
        await client.shutdown_session()
    finally:
        if client._server is not None and client._server.returncode is None:
            client._server.kill()
        await client.stop()


@pytest.mark.asyncio
async def test_the_package_stops_reexporting_and_the_launch_no_longer_reaches_the_script(tmp_path):
    """The script's `from kernels import square` follows the __init__: once it no longer
    re-exports the function, the name is the submodule and no kernel is launched."""
    ws = tmp_path / "ws"
    shutil.copytree(WS, ws)
    client = LanguageClient()
    await client.start_io(*SERVER, cwd=str(ws))
    try:
        await open_client(client, "vscode", root=ws)
        helper, init, runner = ws / "kernels" / "helpers.py", ws / "kernels" / "__init__.py", ws / "run_square.py"
        open_doc(client, helper.as_uri(), helper.read_text())
        await until(client, helper.as_uri(), [("PAL001", 5)])
        open_doc(client, runner.as_uri(), runner.read_text())
        await until(client, runner.as_uri(), [("PAL001", 5)])
        open_doc(client, init.as_uri(), init.read_text())
        change(client, init.as_uri(), 2, None, "from . import helpers\n")
        await until(client, helper.as_uri(), [])
        await until(client, runner.as_uri(), [])
        change(client, init.as_uri(), 3, None, "from .square import square\n")
        await until(client, helper.as_uri(), [("PAL001", 5)])
        await until(client, runner.as_uri(), [("PAL001", 5)])
        await client.shutdown_session()
    finally:
        if client._server is not None and client._server.returncode is None:
            client._server.kill()
        await client.stop()
