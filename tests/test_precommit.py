"""The pre-commit hook (.pre-commit-hooks.yaml), run the way a user tries it: `pre-commit
try-repo` on a repository holding this project, in a fresh git repository with staged files.
pre-commit installs the package into its own environment (from the package index: its
dependencies), so this needs `pre-commit` (test extras) and the index."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CORPUS, ROOT
from tests.test_notebooks_check import issue_notebook

PRE_COMMIT = Path(sys.executable).with_name("pre-commit")
# pre-commit builds the hook's environment from the package index (~20 s a test).
pytestmark = pytest.mark.slow


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false",
                    *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> Path:
    """A git repository with this project's hook file and package (what `repo:` would clone)."""
    if not PRE_COMMIT.exists():
        pytest.skip("pre-commit is not installed (pip install -e '.[test]')")
    repo = tmp_path_factory.mktemp("hook")
    for name in (".pre-commit-hooks.yaml", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, repo / name)
    shutil.copytree(ROOT / "server" / "pallas_lsp", repo / "server" / "pallas_lsp",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "hook")
    return repo


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")  # the hook's environment, installed once


def try_repo(hook_repo: Path, home: Path, work: Path, files: dict[str, str]) -> subprocess.CompletedProcess:
    work.mkdir()
    git(work, "init", "-q")
    for name, text in files.items():
        (work / name).write_text(text)
    git(work, "add", *files)  # staged: what the hook is given
    # (the package index settings stay; a git or pre-commit setting of the caller's does not)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT", "VIRTUAL_ENV"))}
    env["PRE_COMMIT_HOME"] = str(home)
    return subprocess.run([str(PRE_COMMIT), "try-repo", str(hook_repo), "pallas-lsp"], cwd=work, env=env,
                          capture_output=True, text=True, timeout=600)


def test_a_failing_kernel_fails_the_hook(hook_repo, pre_commit_home, tmp_path):
    proc = try_repo(hook_repo, pre_commit_home, tmp_path / "work",
                    {"kernel.py": (CORPUS / "get_global_interpret_true_basic.py").read_text(),
                     "nb.ipynb": issue_notebook(),
                     "notes.txt": "not checked\n"})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "pallas-lsp...." in proc.stdout and "Failed" in proc.stdout
    assert "kernel.py:9:11: PAL001 [error]" in proc.stdout
    assert "nb.ipynb:cell 2:3:11: PAL001 [error]" in proc.stdout  # (types_or: jupyter)
    assert "notes.txt" not in proc.stdout


def test_a_clean_file_passes(hook_repo, pre_commit_home, tmp_path):
    proc = try_repo(hook_repo, pre_commit_home, tmp_path / "work",
                    {"clean.py": (CORPUS / "get_global_helper_never_called_clean.py").read_text()})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Passed" in proc.stdout
