"""Started inside a workspace, the server and the CLI never import the workspace's modules.

`python -m pallas_lsp` (how the VS Code extension launches the server) puts the current
directory first on sys.path, and so does an empty or relative PYTHONPATH entry for the
console script: a workspace's argparse.py or json.py then shadowed the standard library and
ran. Each module here writes a marker file if it is ever imported."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from tests.robustness.rawclient import RawClient

SHADOWS = ("argparse", "json", "logging", "re", "asyncio", "typing", "pathlib", "dataclasses", "enum", "ast")
KERNEL = (CORPUS / "get_global_interpret_true_basic.py").read_text()
CONSOLE_SCRIPT = Path(sys.executable).with_name("pallas-lsp")


@pytest.fixture()
def workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    markers = tmp_path / "markers"
    markers.mkdir()
    for name in SHADOWS:
        (ws / f"{name}.py").write_text(
            f"open({str(markers / name)!r}, 'w').write('imported from the workspace')\n")
    (ws / "kernel.py").write_text(KERNEL)
    return ws, markers


INHERITED = os.environ.get("PYTHONPATH", "")
LAUNCHES = {
    "python -m": ([sys.executable, "-m", "pallas_lsp"], {}),
    "console script, empty PYTHONPATH entry": ([str(CONSOLE_SCRIPT)], {"PYTHONPATH": os.pathsep + INHERITED}),
    "console script, relative PYTHONPATH entry": ([str(CONSOLE_SCRIPT)], {"PYTHONPATH": "." + os.pathsep + INHERITED}),
}


@pytest.mark.parametrize("launch", list(LAUNCHES))
def test_server_started_in_a_workspace_imports_none_of_its_modules(workspace, launch):
    ws, markers = workspace
    command, env = LAUNCHES[launch]
    if not Path(command[0]).exists():
        pytest.fail(f"{command[0]} is not installed: the editable install provides it")
    c = RawClient(command=command + ["serve"], env=env, cwd=str(ws))
    caps = {"textDocument": {"diagnostic": {}}, "general": {"positionEncodings": ["utf-16"]}}
    res = c.request("initialize", {"processId": None, "rootUri": ws.as_uri(), "capabilities": caps,
                                   "initializationOptions": {"debounceMs": 0}}, timeout=60)
    assert "error" not in res, "".join(c.stderr_lines[-20:])
    c.notify("initialized", {})
    uri = (ws / "kernel.py").as_uri()
    c.open(uri, KERNEL)
    assert [d["code"] for d in c.diagnostics(uri)] == ["PAL001"]
    assert c.close() == 0
    assert sorted(p.name for p in markers.iterdir()) == []


@pytest.mark.parametrize("launch", list(LAUNCHES))
def test_check_started_in_a_workspace_imports_none_of_its_modules(workspace, launch):
    ws, markers = workspace
    command, env = LAUNCHES[launch]
    proc = subprocess.run(command + ["check", "kernel.py"], cwd=ws, env={**os.environ, **env},
                          capture_output=True, text=True, timeout=120)
    assert "PAL001" in proc.stdout, proc.stderr[-2000:]
    assert sorted(p.name for p in markers.iterdir()) == []


@pytest.mark.skipif(sys.version_info < (3, 11), reason="PYTHONSAFEPATH is new in Python 3.11")
def test_vscode_launch_is_not_shadowed_by_a_workspace_pallas_lsp_package(workspace):
    """Inside the package nothing can undo `python -m` finding a workspace's pallas_lsp/ first;
    the extension starts the server with PYTHONSAFEPATH=1 (clients/vscode/src/extension.ts)."""
    ws, markers = workspace
    (ws / "pallas_lsp").mkdir()
    (ws / "pallas_lsp" / "__init__.py").write_text(
        f"open({str(markers / 'pallas_lsp')!r}, 'w').write('imported from the workspace')\n")
    extension = Path(__file__).resolve().parents[2] / "clients" / "vscode" / "src" / "extension.ts"
    assert 'PYTHONSAFEPATH: "1"' in extension.read_text()
    proc = subprocess.run([sys.executable, "-m", "pallas_lsp", "check", "kernel.py"], cwd=ws,
                          env={**os.environ, "PYTHONSAFEPATH": "1"}, capture_output=True, text=True, timeout=120)
    assert "PAL001" in proc.stdout, proc.stderr[-2000:]
    assert sorted(p.name for p in markers.iterdir()) == []
