"""``pallas-lsp launches``: every launch with its backend, grid and memory budget, as text and JSON."""
from __future__ import annotations

import json
import shutil
import subprocess

from pallas_lsp.analysis.vmem_budget import MiB
from tests.conftest import DATA, pallas_cli

TWO = DATA / "memory" / "two_launches.py"


def run(*args, cwd=None):
    return subprocess.run(pallas_cli() + ["launches", *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def test_text_lists_launches_with_a_budget(tmp_path):
    shutil.copy(TWO, tmp_path / "k.py")
    got = run("k.py", cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    assert got.stdout.strip() == ("k.py:18: scale_kernel [tpu] VMEM 9 of 16 MiB (v5e): x_ref 2 x 2 MiB, "
                                  "o_ref 2 x 2 MiB, acc_ref 1 MiB")
    every = run("--all", "k.py", cwd=tmp_path)
    assert every.stdout.splitlines()[1] == "k.py:35: debug_kernel [interpret] no memory estimate"


def test_json_fields_and_the_generation_setting(tmp_path):
    shutil.copy(TWO, tmp_path / "k.py")
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\ntpu-generation = "v6e"\n')
    rows = json.loads(run("--output-format", "json", "k.py", cwd=tmp_path).stdout)
    assert [(r["line"], r["backend"], r["vmem_scoped_bytes"]) for r in rows] == [(18, "tpu", 9 * MiB),
                                                                                (35, "interpret", None)]
    first = rows[0]
    assert first["tpu_generation"] == "v6e" and first["vmem_limit_bytes"] is None  # (v6e: not measured)
    assert first["grid"] == [4] and [p["name"] for p in first["parts"]] == ["x_ref", "o_ref", "acc_ref"]
    v5e = json.loads(run("--output-format", "json", "--tpu-generation", "v5e", "k.py", cwd=tmp_path).stdout)
    assert v5e[0]["vmem_limit_bytes"] == 16 * MiB


def test_backends_setting_makes_a_launch_compiled_for_tpu(tmp_path):
    text = TWO.read_text().replace(
        '        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),\n', "").replace(
        "        scratch_shapes=[pltpu.VMEM(BLOCK, jnp.bfloat16)],\n", "").replace(
        "def scale_kernel(x_ref, o_ref, acc_ref):\n    acc_ref[...] = x_ref[...] * 2.0\n    o_ref[...] = acc_ref[...]",
        "def scale_kernel(x_ref, o_ref):\n    o_ref[...] = x_ref[...] * 2.0")
    (tmp_path / "k.py").write_text(text)
    plain = json.loads(run("--output-format", "json", "k.py", cwd=tmp_path).stdout)
    assert plain[0]["backend"] == "compiled" and plain[0]["vmem_scoped_bytes"] is None
    tpu = json.loads(run("--output-format", "json", "--backends", "tpu", "k.py", cwd=tmp_path).stdout)
    assert tpu[0]["backend"] == "tpu" and tpu[0]["vmem_scoped_bytes"] == 8 * MiB


def test_bad_input_is_a_clear_error(tmp_path):
    missing = run(str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and "no such file or directory" in missing.stderr
    wrong = run("--backends", "tpux", str(tmp_path))
    assert wrong.returncode == 2 and "unknown backend `tpux`" in wrong.stderr
    (tmp_path / "bad.py").write_bytes(b"\xff\xfe not utf-8 \x00")
    (tmp_path / "k.py").write_text(TWO.read_text())
    both = run(str(tmp_path))
    assert both.returncode == 0 and "scale_kernel [tpu]" in both.stdout
    assert "bad.py: the file starts with a UTF-16 byte order mark" in both.stderr
