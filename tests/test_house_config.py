"""The house checks agree with each other: the ruff pre-commit runs is the ruff the test extras
pin, and the local hooks' commands exist."""
import re
from pathlib import Path

import yaml  # (pre-commit's dependency, in the test extras)

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

from tests.conftest import ROOT


def test_pre_commit_runs_the_ruff_the_test_extras_pin():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    (pin,) = [re.fullmatch(r"ruff==([0-9.]+)", d).group(1) for d in extras if d.startswith("ruff")]
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    (ruff_repo,) = [r for r in config["repos"] if r["repo"].endswith("/ruff-pre-commit")]
    assert ruff_repo["rev"] == f"v{pin}"


def test_the_local_hooks_name_commands_of_this_repository():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    (local,) = [r for r in config["repos"] if r["repo"] == "local"]
    for hook in local["hooks"]:
        command = hook["entry"].split()[0]
        assert command.startswith((".venv/", "scripts/")), hook["id"]
        if command.startswith("scripts/"):
            assert (ROOT / command).is_file() and (ROOT / command).stat().st_mode & 0o111, hook["id"]
    assert Path(ROOT / ".pre-commit-hooks.yaml").is_file()  # the users' hook stays beside it
