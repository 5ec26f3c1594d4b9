"""The TPU launch-structure kinds (PAL614, PAL615, PAL645-PAL649) on code shapes of their own,
each with a clean twin. Every flagged program here was run under jax 0.12.0.1 (lowered for an
abstract TPU v5 lite on the CPU, or built in interpret mode for PAL615) and raises that kind's
error for the line marked ``# here``; each twin lowers (or runs)."""
from __future__ import annotations

import pytest

from pallas_lsp.analysis.contexts import JaxRelease
from pallas_lsp.rules import analyse, default_engine

HEAD = """\
import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import triton as plt
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

TPU = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                   abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))

"""

LOWER = """

with use_abstract_mesh(TPU):
    jax.jit({fn}).trace({args}).lower(lowering_platforms=("tpu",))
print("lowered")
"""


def lowered(body: str, fn: str, args: str) -> str:
    return body + LOWER.format(fn=fn, args=args)


CASES = {
    # PAL645: a 0-d int32 output of a gridless count kernel, the default out_specs (VMEM).
    "rank0_default_output": ("PAL645", lowered("""\
def count_kernel(x_ref, o_ref):
    o_ref[...] = jnp.sum(x_ref[...])


def count(x):
    return pl.pallas_call(
        count_kernel,
        out_shape=jax.ShapeDtypeStruct((), jnp.int32),  # here
    )(x)
""", "count", "jax.ShapeDtypeStruct((8, 128), jnp.int32)")),
    "rank0_output_in_smem": (None, lowered("""\
def count_kernel(x_ref, o_ref):
    o_ref[0] = x_ref[0, 0]


def count(x):
    return pl.pallas_call(
        count_kernel,
        out_shape=jax.ShapeDtypeStruct((1,), jnp.int32),
        out_specs=pl.BlockSpec(memory_space=pltpu.SMEM),
    )(x)
""", "count", "jax.ShapeDtypeStruct((8, 128), jnp.int32)")),
    # PAL646: rows, cols unpacked from the operand's shape; a quarter block, no grid.
    "gridless_quarter_block_unpacked": ("PAL646", lowered("""\
def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def quarter(x):
    rows, cols = x.shape
    return pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct((rows // 4, cols), x.dtype),
        grid=(),
        in_specs=[pl.BlockSpec((rows // 4, cols), lambda: (0, 0))],  # here
    )(x)
""", "quarter", "jax.ShapeDtypeStruct((64, 256), jnp.float32)")),
    "gridless_whole_block_unpacked": (None, lowered("""\
def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def whole(x):
    rows, cols = x.shape
    return pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct((rows, cols), x.dtype),
        grid=(),
        in_specs=[pl.BlockSpec((rows, cols), lambda: (0, 0))],
    )(x)
""", "whole", "jax.ShapeDtypeStruct((64, 256), jnp.float32)")),
    # PAL647: an ANY block equal to the array, but its index map follows the grid.
    "any_whole_block_moving_index_map": ("PAL647", lowered("""\
def dma_kernel(x_any, o_ref):
    pltpu.sync_copy(x_any.at[pl.ds(0, 8)], o_ref)


def dma(x):
    return pl.pallas_call(
        dma_kernel,
        out_shape=jax.ShapeDtypeStruct((32, 128), x.dtype),
        grid=(4,),
        in_specs=[pl.BlockSpec((32, 128), lambda i: (i, 0), memory_space=pl.ANY)],  # here
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    )(x)
""", "dma", "jax.ShapeDtypeStruct((32, 128), jnp.float32)")),
    "any_whole_block_zero_index_map": (None, lowered("""\
def dma_kernel(x_any, o_ref):
    pltpu.sync_copy(x_any.at[pl.ds(pl.program_id(0) * 8, 8)], o_ref)


def dma(x):
    return pl.pallas_call(
        dma_kernel,
        out_shape=jax.ShapeDtypeStruct((32, 128), x.dtype),
        grid=(4,),
        in_specs=[pl.BlockSpec((32, 128), lambda i: (0, 0), memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    )(x)
""", "dma", "jax.ShapeDtypeStruct((32, 128), jnp.float32)")),
    # PAL648: the semantics made by `* 2` of a misspelt module constant read in a function (underlined
    # where the constant is written).
    "semantics_repeated_reduction": ("PAL648", lowered("""\
REDUCE = ("reduce",)  # here


def add_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1


def add(x):
    return pl.pallas_call(
        add_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(2, 2),
        in_specs=[pl.BlockSpec((8, 128), lambda i, j: (i, j))],
        out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=REDUCE * 2),
    )(x)
""", "add", "jax.ShapeDtypeStruct((16, 256), jnp.float32)")),
    "semantics_repeated_arbitrary": (None, lowered("""\
AXIS = ("arbitrary",)


def add_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1


def add(x):
    return pl.pallas_call(
        add_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(2, 2),
        in_specs=[pl.BlockSpec((8, 128), lambda i, j: (i, j))],
        out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=AXIS * 2),
    )(x)
""", "add", "jax.ShapeDtypeStruct((16, 256), jnp.float32)")),
    # PAL649: Mosaic GPU SMEM as a BlockSpec's memory space (a scalar-like table).
    "gpu_smem_block_spec": ("PAL649", lowered("""\
def lookup_kernel(t_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * t_ref[0]


def lookup(t, x):
    return pl.pallas_call(
        lookup_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=plgpu.SMEM), pl.BlockSpec()],  # here
    )(t, x)
""", "lookup", "jax.ShapeDtypeStruct((4,), jnp.float32), jax.ShapeDtypeStruct((8, 128), jnp.float32)")),
    "tpu_smem_block_spec": (None, lowered("""\
def lookup_kernel(t_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * t_ref[0]


def lookup(t, x):
    return pl.pallas_call(
        lookup_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM), pl.BlockSpec()],
    )(t, x)
""", "lookup", "jax.ShapeDtypeStruct((4,), jnp.float32), jax.ShapeDtypeStruct((8, 128), jnp.float32)")),
    # PAL614: Mosaic GPU params from a helper, lowered for TPU.
    "mosaic_gpu_params_helper_for_tpu": ("PAL614", lowered("""\
def gpu_params():
    return plgpu.CompilerParams(approx_math=True)


def exp_kernel(x_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...])


def exp(x):
    return pl.pallas_call(
        exp_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        compiler_params=gpu_params(),  # here
    )(x)
""", "exp", "jax.ShapeDtypeStruct((8, 128), jnp.float32)")),
    "tpu_params_helper_for_tpu": (None, lowered("""\
def tpu_params():
    return pltpu.CompilerParams(vmem_limit_bytes=32 * 1024 * 1024)


def exp_kernel(x_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...])


def exp(x):
    return pl.pallas_call(
        exp_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        compiler_params=tpu_params(),
    )(x)
""", "exp", "jax.ShapeDtypeStruct((8, 128), jnp.float32)")),
    # PAL615: a misspelt field of the Triton params, in interpret mode (built before anything runs).
    "triton_params_misspelt_interpret": ("PAL615", """\
def add_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1


x = jnp.ones((16,), jnp.float32)
pl.pallas_call(
    add_kernel,
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    compiler_params=plt.CompilerParams(num_warp=4),  # here
    interpret=True,
)(x)
"""),
    "triton_params_spelt_interpret": (None, """\
def add_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1


x = jnp.ones((16,), jnp.float32)
pl.pallas_call(
    add_kernel,
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    compiler_params=plt.CompilerParams(num_warps=4),
    interpret=True,
)(x)
"""),
}

# Interpret mode never lowers for TPU: the lowering kinds stay quiet there.
INTERPRETED = {
    "gridless_quarter_block_interpret": """\
def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


x = jnp.ones((64, 256), jnp.float32)
pl.pallas_call(
    copy_kernel,
    out_shape=jax.ShapeDtypeStruct((16, 256), x.dtype),
    in_specs=[pl.BlockSpec((16, 256), lambda: (0, 0))],
    compiler_params=pltpu.CompilerParams(dimension_semantics=()),
    interpret=True,
)(x)
""",
    "semantics_capitalized_interpret": """\
def add_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1


x = jnp.ones((16, 128), jnp.float32)
pl.pallas_call(
    add_kernel,
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    grid=(2,),
    in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("Parallel",)),
    interpret=True,
)(x)
""",
}

CODES = {"PAL614", "PAL615", "PAL645", "PAL646", "PAL647", "PAL648", "PAL649"}


def findings(source: str, **kw) -> list[tuple[str, int]]:
    return [(f.code, f.span.line) for f in analyse(source, "case.py", **kw).findings if f.code in CODES]


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_case_is_flagged_on_its_line_and_each_twin_is_quiet(name: str) -> None:
    code, body = CASES[name]
    source = HEAD + body
    if code is None:
        assert findings(source) == []
        return
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "# here" in text)
    assert findings(source) == [(code, line)]


@pytest.mark.parametrize("name", sorted(INTERPRETED))
def test_interpret_mode_never_gets_the_lowering_kinds(name: str) -> None:
    assert findings(HEAD + INTERPRETED[name]) == []


def test_the_params_fields_follow_the_checked_release() -> None:
    # opt_level came to pltpu.CompilerParams in jax 0.11; kernel_type left it after 0.9.
    source = HEAD + """\
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...]


x = jnp.ones((8, 128), jnp.float32)
pl.pallas_call(k, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
               compiler_params=pltpu.CompilerParams({kw}), interpret=True)(x)
"""
    engine = default_engine()
    for keyword, flagged_in in (("opt_level=None", {"0.10.2", "0.9.2", "0.8.3"}),
                                ("kernel_type=None", {"0.10.2", "0.11.2", "0.12.0.1"})):
        for version in ("0.8.3", "0.9.2", "0.10.2", "0.11.2", "0.12.0.1"):
            got = [f.code for f in engine.analyse(source.replace("{kw}", keyword), "case.py",
                                                  release=JaxRelease(version=version)).findings if f.code == "PAL615"]
            assert got == (["PAL615"] if version in flagged_in else []), (keyword, version)


def test_wrong_backend_needs_the_code_to_say_the_other_platform() -> None:
    # Triton params say the launch is a Triton one: the `backends` setting (for launches whose
    # backend the code does not say) does not override them, so only an explicit lowering for
    # TPU is flagged (GPU-only modules of a TPU project are correct code).
    body = """\
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def run(x):
    return pl.pallas_call(k, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          compiler_params=plt.CompilerParams(num_warps=4))(x)  # here
"""
    assert findings(HEAD + body, backends=("tpu",)) == []
    source = HEAD + lowered(body, "run", "jax.ShapeDtypeStruct((8, 128), jnp.float32)")
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "# here" in text)
    assert findings(source) == [("PAL614", line)]


def test_the_messages_say_what_was_written() -> None:
    (semantics,) = [f for f in analyse(HEAD + CASES["semantics_repeated_reduction"][1], "case.py").findings
                    if f.code == "PAL648"]
    assert "'reduce'" in semantics.message and "'arbitrary'" in semantics.message
    (field,) = [f for f in analyse(HEAD + CASES["triton_params_misspelt_interpret"][1], "case.py").findings
                if f.code == "PAL615"]
    assert "`num_warp=`" in field.message and "did you mean `num_warps`" in field.message
    (gridless,) = [f for f in analyse(HEAD + CASES["gridless_quarter_block_unpacked"][1], "case.py").findings
                   if f.code == "PAL646"]
    assert "(16, 256) of (64, 256)" in gridless.message
