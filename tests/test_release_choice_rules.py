"""`pallas-lsp rules` names the jax release its knowledge is for, chosen as `check` chooses it
(issue 43): --jax-version, else the working folder's pyproject.toml, else its .venv."""
from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

from pallas_lsp.cli import main

from tests.test_releases import fake_venv


def release_line(text: str) -> str:
    """The header's release part (the TPU generation choice follows it on the same line)."""
    return text.splitlines()[0].split("; no TPU generation")[0]


def rules(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(["rules", *args]) == 0
    return out.getvalue(), err.getvalue()


def test_rules_name_the_workspace_venvs_release(tmp_path, monkeypatch):
    fake_venv(tmp_path, "0.11.1")
    monkeypatch.chdir(tmp_path)
    text, _ = rules()
    assert release_line(text) == "Knowledge for jax 0.11.1 (from the workspace's .venv); knowledge of 0.11.2 used"
    rows = json.loads(rules("--format", "json")[0])
    assert {r["jax"]["release_used"] for r in rows} == {"0.11.2"}
    assert rows[0]["jax"]["source"] == ".venv"


def test_jax_version_flag_wins_over_the_pyproject(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\njax-version = "0.9.2"\n')
    monkeypatch.chdir(tmp_path)
    assert rules()[0].splitlines()[0].startswith("Knowledge for jax 0.9.2 (from `jax-version` in ")
    assert release_line(rules("--jax-version", "0.10.2")[0]) == "Knowledge for jax 0.10.2 (from --jax-version)"


def test_a_malformed_flag_is_told_and_the_next_source_decides(tmp_path, monkeypatch):
    fake_venv(tmp_path, "0.10.2")
    monkeypatch.chdir(tmp_path)
    text, err = rules("--jax-version", "latest")
    assert "'latest'" in err
    assert release_line(text) == "Knowledge for jax 0.10.2 (from the workspace's .venv)"
