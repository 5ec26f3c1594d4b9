"""Workspace fixtures under real JAX: every script of reexport_ws that `check` says fails
(through a launcher its package re-exports) raises the error the finding names, and the decoy
runs clean. Each script runs as itself, from a copy of the workspace, on the CPU."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.conftest import DATA, pallas_cli

from .conftest import TIMEOUT_S, WRAPPER, MARK, _child_env

pytestmark = pytest.mark.oracle

REEXPORT_WS = DATA / "workspaces" / "reexport_ws"
SCRIPTS = sorted(p.name for p in REEXPORT_WS.glob("run_*.py"))


@pytest.fixture(scope="module")
def findings_by_script(tmp_path_factory):
    """`check` over the workspace: the scripts its findings name as deciding the mode."""
    proc = subprocess.run(pallas_cli() + ["check", "--output-format", "json", str(REEXPORT_WS)],
                          capture_output=True, text=True, timeout=300)
    out: dict[str, str] = {}
    for f in json.loads(proc.stdout or "[]"):
        for script in SCRIPTS:
            if f"{script}:" in f["message"]:
                out[script] = f["message"]
    return out


@pytest.mark.parametrize("script", SCRIPTS)
def test_reexport_scripts_fail_under_jax_exactly_where_check_says(script, oracle, tmp_path, findings_by_script):
    ws = tmp_path / "ws"
    shutil.copytree(REEXPORT_WS, ws)
    proc = subprocess.run([oracle.python, "-c", WRAPPER, str(ws / script), MARK], cwd=ws, env=_child_env(),
                          capture_output=True, text=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
    line = next((text for text in reversed(proc.stdout.splitlines()) if text.startswith(MARK)), None)
    assert line is not None, proc.stdout[-2000:] + proc.stderr[-2000:]
    res = json.loads(line[len(MARK):])
    if script == "run_decoy.py":
        assert res["outcome"] == "clean", res
        assert script not in findings_by_script
        return
    assert (res["outcome"], res["error_class"]) == ("raises", "TypeError"), res
    assert res["message"].startswith("No ir_type_handler for aval type"), res["message"][:300]
    assert "JAX raises TypeError: No ir_type_handler" in findings_by_script[script]
