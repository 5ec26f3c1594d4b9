"""What PAL401's hover offers instead of an operation a backend cannot lower
(server/pallas_lsp/records/lowering/alternatives.json), lowered under real JAX for every backend
an entry names: the `fails` kernel body emits the primitive and is refused with "Unimplemented
primitive ... <primitive>", and the `lowers` body lowers. The lowering is done as in
../shared/corpus-prims (Mosaic TPU and Triton under an abstract device, Mosaic GPU per lowering
semantics with sm_90 assumed), on this CPU-only host."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from .conftest import Program

pytestmark = pytest.mark.oracle

ROOT = Path(__file__).resolve().parents[2]
ALTERNATIVES = json.loads((ROOT / "server" / "pallas_lsp" / "records" / "lowering" / "alternatives.json").read_text())

SCAFFOLD = '''import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

R, C = 32, 128
IN = [jax.ShapeDtypeStruct((R, C), jnp.float32)]
OUT = jax.ShapeDtypeStruct((R, C), jnp.float32)


def kernel(x_ref, o_ref):
{body}


def lower(backend):
    if backend in ("tpu", "triton"):
        device = AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu") if backend == "tpu" \\
            else AbstractDevice(device_kind="NVIDIA H100", num_cores=132, platform="gpu")
        mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,), abstract_device=device)
        f = lambda *a: pl.pallas_call(kernel, out_shape=OUT, grid=(1,))(*a)
        with use_abstract_mesh(mesh):
            return jax.jit(f).trace(*IN).lower(lowering_platforms=("tpu" if backend == "tpu" else "cuda",))
    semantics = plgpu.LoweringSemantics.Lane if backend == "mosaic_gpu_lane" else plgpu.LoweringSemantics.Warpgroup
    params = plgpu.CompilerParams(lowering_semantics=semantics)
    f = lambda *a: plgpu.kernel(kernel, out_type=OUT, grid=(1,), grid_names=("g",), compiler_params=params)(*a)
    return jax.jit(f).trace(*IN).lower(lowering_platforms=("cuda",))


lower("{backend}")
'''

CASES = [(a, b) for a in ALTERNATIVES["alternatives"] for b in a["backends"]]


def program(entry: dict, backend: str, which: str) -> Program:
    text = SCAFFOLD.replace("{body}", textwrap.indent(entry[which], "    ")).replace("{backend}", backend)
    return Program(f"alt_{entry['primitive']}_{backend}_{which}.py", text)


@pytest.mark.parametrize("entry, backend", CASES, ids=[f"{a['primitive']}-{b}" for a, b in CASES])
def test_the_alternative_lowers_where_the_operation_does_not(entry, backend, oracle):
    fails = oracle.submit(program(entry, backend, "fails"))
    lowers = oracle.submit(program(entry, backend, "lowers"))
    refused, ran = fails.result(), lowers.result()
    assert refused.outcome == "raises" and refused.error_class == "NotImplementedError", refused.describe()
    assert "Unimplemented primitive" in refused.message and f": {entry['primitive']}" in refused.message, \
        refused.describe()
    assert ran.outcome == "clean", ran.describe()
