"""`check` against the workspace's jax release (issue 43): chosen from --jax-version, the
pyproject's `jax-version` or the workspace's .venv, shown, and used by the lowering rules.
What each release does was run under jax 0.12.0.1 (.oracle-env) and 0.10.2 (.oracle-env-0.10.2)."""
from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from pallas_lsp.cli import main
from pallas_lsp.lowering import tables

from tests.test_releases import fake_venv

# A scratch buffer made with jnp.empty in a TPU kernel: `empty` has no Mosaic TPU rule in
# 0.12.0.1 (NotImplementedError), while 0.10.2's jnp.empty is a broadcast, which lowers.
SCRATCH_TPU = '''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def accumulate(x_ref, o_ref):
    scratch = jnp.empty((16, 128), jnp.float32)
    o_ref[...] = x_ref[...] * 2.0 + scratch


def double(x):
    call = pl.pallas_call(accumulate, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
                          compiler_params=pltpu.CompilerParams())
    return call(x)
'''

# A plain pallas_call (no compiler params) lowered for CUDA: Triton in 0.12.0.1; Mosaic GPU with
# Lane semantics in 0.10.2, which has no rule for dot_general (NotImplementedError).
PLAIN_CUDA_DOT = '''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def project(w_ref, x_ref, o_ref):
    o_ref[...] = jnp.dot(w_ref[...], x_ref[...])


def apply(w, x):
    return pl.pallas_call(project, out_shape=jax.ShapeDtypeStruct((32, 32), jnp.float32))(w, x)


w = jnp.ones((32, 32), jnp.float32)
exported = jax.jit(apply).trace(w, w).lower(lowering_platforms=("cuda",))
'''


def check(*args: str, fmt: str = "json") -> tuple[object, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        main(["check", "--no-cache", "--output-format", fmt, *args])
    return (json.loads(out.getvalue()) if fmt == "json" else out.getvalue()), err.getvalue()


def workspace(tmp_path: Path, source: str, pyproject: str | None = None) -> Path:
    ws = tmp_path / "ws"
    (ws / "kernels").mkdir(parents=True)
    (ws / "kernels" / "k.py").write_text(source)
    if pyproject is not None:
        (ws / "pyproject.toml").write_text(pyproject)
    return ws


def codes(findings) -> list[str]:
    return [f["code"] for f in findings]


def test_the_tables_say_what_the_cases_rely_on():
    assert tables("0.12.0.1").unlowered("tpu", "jax.numpy.empty") == {"empty"}
    assert tables("0.10.2").unlowered("tpu", "jax.numpy.empty") == frozenset()
    for release in ("0.10.2", "0.12.0.1"):
        assert tables(release).unlowered("mosaic_gpu_lane", "jax.numpy.dot") == {"dot_general"}
        assert tables(release).unlowered("triton", "jax.numpy.dot") == frozenset()


def test_default_release_reports_empty_in_a_tpu_kernel(tmp_path):
    ws = workspace(tmp_path, SCRATCH_TPU)
    found, _ = check(str(ws))
    assert codes(found) == ["PAL401"] and "jax" not in found[0]  # (the default adds no key)


def test_workspace_venv_decides_without_any_setting(tmp_path):
    ws = workspace(tmp_path, SCRATCH_TPU)
    fake_venv(ws, "0.10.2")
    assert check(str(ws))[0] == []
    text, _ = check(str(ws), fmt="text")
    assert "No problems found (jax 0.10.2 from .venv)." in text


def test_pyproject_setting_and_the_command_line_over_it(tmp_path):
    ws = workspace(tmp_path, SCRATCH_TPU, '[tool.pallas-lsp]\njax-version = "0.10.2"\n')
    assert check(str(ws))[0] == []
    found, _ = check("--jax-version", "0.12.0.1", str(ws))
    assert codes(found) == ["PAL401"]
    assert found[0]["jax"] == {"version_found": "0.12.0.1", "release_used": "0.12.0.1",
                               "source": "--jax-version", "note": ""}


def test_same_minor_maps_and_says_so(tmp_path):
    ws = workspace(tmp_path, PLAIN_CUDA_DOT)
    found, _ = check("--jax-version", "0.10.1", str(ws))
    assert codes(found) == ["PAL401"]
    assert found[0]["jax"]["release_used"] == "0.10.2"
    assert found[0]["jax"]["note"] == "0.10.1: knowledge of 0.10.2 used"


def test_malformed_setting_is_reported_and_the_default_used(tmp_path):
    ws = workspace(tmp_path, SCRATCH_TPU, '[tool.pallas-lsp]\njax-version = "latest"\n')
    found, err = check(str(ws))
    assert codes(found) == ["PAL401"]
    assert "`jax-version` must be a jax version" in err and "'latest'" in err


def test_plain_cuda_pallas_call_is_mosaic_gpu_lane_under_0_10_2(tmp_path):
    ws = workspace(tmp_path, PLAIN_CUDA_DOT)
    found, _ = check("--jax-version", "0.10.2", str(ws))
    assert codes(found) == ["PAL401"]
    assert "Mosaic GPU (Lane semantics)" in found[0]["message"] and "jax 0.10.2" in found[0]["message"]
    # Triton lowers dot_general: under the pinned release the matmul itself is fine.
    assert "PAL401" not in codes(check(str(ws))[0])
