"""A team's own kinds (a records file with a detection section) named in `select`/`ignore`:
checked against the rule set the run uses, whichever way the records came (issue 38).
The server's side: tests/lsp/test_settings_team_rules.py."""
from __future__ import annotations

import json
import shutil
import subprocess

from tests.conftest import pallas_cli
from tests.rules.test_user_record_kind import RECORD

# A kernel that adds two inputs through a scoped buffer shared by the simulated cores: the
# team's record (PAL190) says TPU interpret mode raises on `collective_axes=`.
SHARED_SCRATCH = '''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def add_kernel(a_ref, b_ref, out_ref):
    def step(acc):
        acc[...] = a_ref[...] + b_ref[...]
        out_ref[...] = acc[...]

    pl.run_scoped(step, pltpu.VMEM((16, 128), jnp.float32), collective_axes="core")


a = jnp.zeros((16, 128), jnp.float32)
summed = pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype),
                        interpret=pltpu.InterpretParams(num_cores_or_threads_per_chip=2))(a, a)
'''
# The clean twin: the buffer is the kernel's own.
OWN_SCRATCH = SHARED_SCRATCH.replace(', collective_axes="core")', ")")


def _project(tmp_path, table: str, text: str = SHARED_SCRATCH):
    shutil.copy(RECORD, tmp_path / "team.json")
    (tmp_path / "pyproject.toml").write_text(f"[tool.pallas-lsp]\n{table}")
    (tmp_path / "kern.py").write_text(text)
    return tmp_path / "kern.py"


def _check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(pallas_cli() + ["check", "--no-cache", *args], capture_output=True, text=True, timeout=120)


def test_pyproject_select_names_the_rule_its_records_declare(tmp_path):
    path = _project(tmp_path, 'records = ["team.json"]\nselect = ["PAL190"]\n')
    p = _check("--output-format", "json", str(path))
    assert p.returncode == 1, p.stderr
    assert [f["code"] for f in json.loads(p.stdout)] == ["PAL190"]
    assert "unknown rule" not in p.stderr and "names no known rule" not in p.stderr


def test_pyproject_still_reports_a_rule_no_one_declares(tmp_path):
    path = _project(tmp_path, 'records = ["team.json"]\nselect = ["PAL190", "PAL1900"]\nignore = ["PAL19x"]\n')
    p = _check("--output-format", "json", str(path))
    assert [f["code"] for f in json.loads(p.stdout)] == ["PAL190"]
    where = tmp_path / "pyproject.toml"
    assert f"{where}: `select`: unknown rule `PAL1900`" in p.stderr
    assert f"{where}: `ignore`: unknown rule `PAL19x`" in p.stderr
    assert "unknown rule `PAL190`" not in p.stderr


def test_pyproject_ignore_names_the_teams_rule(tmp_path):
    # (PAL203, built in since, finds the same call)
    path = _project(tmp_path, 'records = ["team.json"]\nignore = ["PAL190", "PAL203"]\n')
    p = _check("--output-format", "json", str(path))
    assert (p.returncode, json.loads(p.stdout)) == (0, []), p.stderr
    assert "unknown rule" not in p.stderr


def test_command_line_select_names_the_rule_the_projects_records_declare(tmp_path):
    path = _project(tmp_path, 'records = ["team.json"]\n')
    p = _check("--select", "PAL190", "--output-format", "json", str(path))
    assert p.returncode == 1, p.stderr
    assert [f["code"] for f in json.loads(p.stdout)] == ["PAL190"]
    # Without the project's config the rule does not exist: still a usage error.
    p = _check("--no-config", "--select", "PAL190", str(path))
    assert p.returncode == 2 and "--select: unknown rule PAL190" in p.stderr


def test_clean_twin_stays_quiet(tmp_path):
    path = _project(tmp_path, 'records = ["team.json"]\nselect = ["PAL190"]\n', OWN_SCRATCH)
    p = _check(str(path))
    assert (p.returncode, p.stderr) == (0, "") and "PAL190" not in p.stdout
