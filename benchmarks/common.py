"""Helpers shared by the benchmark scripts (standard library only)."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def resolve(exe: str) -> str:
    """A tool from .bench-venv/bin, else .venv/bin, else this interpreter's bin, else PATH."""
    if "/" in exe:
        return exe
    for d in (REPO / ".bench-venv" / "bin", REPO / ".venv" / "bin", Path(sys.executable).parent):
        if (d / exe).is_file() and os.access(d / exe, os.X_OK):
            return str(d / exe)
    return shutil.which(exe) or exe


def compile_package() -> None:
    """Byte-compile this project's package, as installing a wheel does. The editable install
    is otherwise compiled from source at every start where PYTHONDONTWRITEBYTECODE is set (it
    is on these machines): 0.06-0.1 s of every `check` and `initialize` would measure the
    compiler, which no user of an installed wheel pays."""
    import compileall

    pkg = REPO / "server" / "pallas_lsp"
    if pkg.is_dir():
        compileall.compile_dir(str(pkg), quiet=1)


def code_state() -> dict:
    """Which pallas-lsp code ran: HEAD, and the uncommitted changes under server/ (an editable
    install runs the working tree, so figures are only comparable for the same state)."""
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True,
                                  timeout=20).stdout
        except (OSError, subprocess.SubprocessError):
            return ""
    head = git("rev-parse", "--short", "HEAD").strip() or "?"
    changed = [line[3:] for line in git("status", "--porcelain", "--", "server").splitlines()]
    diff = git("diff", "HEAD", "--", "server")
    digest = hashlib.sha1(diff.encode()).hexdigest()[:10] if changed else None
    return {"head": head, "server_changes": changed, "server_diff_sha1": digest}


def describe_code_state(state: dict) -> str:
    if not state["server_changes"]:
        return f"pallas-lsp code: {state['head']} (server/ clean)"
    return (f"pallas-lsp code: {state['head']} + {len(state['server_changes'])} uncommitted file(s) under "
            f"server/ (diff sha1 {state['server_diff_sha1']})")
