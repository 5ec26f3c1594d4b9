"""`pythonEnvironment` makes jedi start `<env>/bin/python`: it is taken from the user's editor
settings only, never from a workspace file, and unset no interpreter of the workspace runs
(a cloned repository may hold a `.venv/bin/python` that is any program)."""
import subprocess
import sys

from pallas_lsp.config import find_config

# What the server does with the setting: the workspace program's jedi environment.
PROBE = """
import sys
from pallas_lsp.analysis.program import Program
env = sys.argv[2] if len(sys.argv) > 2 else None
try:
    print(Program(sys.argv[1], environment=env)._jedi_project().get_environment().executable)
except Exception as exc:  # the fake interpreter is no Python: jedi gives up on it
    print(type(exc).__name__)
"""


def fake_venv(tmp_path):
    ws = tmp_path / "ws"
    (ws / ".venv" / "bin").mkdir(parents=True)
    (ws / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    marker = tmp_path / "ran"
    python = ws / ".venv" / "bin" / "python"
    python.write_text(f"#!/bin/sh\necho ran >> '{marker}'\nexit 1\n")
    python.chmod(0o755)
    (ws / "k.py").write_text("x = 1\n")
    return ws, marker


def probe(*args: str) -> str:
    return subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                          timeout=60).stdout.strip()


def test_unset_environment_never_runs_the_workspace_interpreter(tmp_path):
    ws, marker = fake_venv(tmp_path)
    env = probe(str(ws))  # the server's own interpreter (or the VIRTUAL_ENV it was started in)
    assert env and env != "InvalidPythonEnvironment" and not env.startswith(str(ws))
    assert not marker.exists()


def test_the_setting_runs_the_interpreter_it_names(tmp_path):
    """What docs/security.md says the setting does (and proof the probe above can see a run)."""
    ws, marker = fake_venv(tmp_path)
    assert probe(str(ws), str(ws / ".venv")) == "InvalidPythonEnvironment"
    assert marker.exists()


def test_a_workspace_pyproject_cannot_set_it(tmp_path):
    ws, _ = fake_venv(tmp_path)
    (ws / "pyproject.toml").write_text('[tool.pallas-lsp]\npythonEnvironment = ".venv"\n')
    cfg = find_config(ws / "k.py")
    assert any("unknown setting `pythonEnvironment`" in p for p in cfg.problems)
    assert not hasattr(cfg, "python_environment")
