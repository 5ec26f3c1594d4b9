"""The Mosaic TPU block kinds (PAL640-, ``analysis/tpu_blocks.py``) on code shapes of their own,
each with a clean twin. Every program here was lowered for TPU under jax 0.12.0.1 (an abstract
TPU v5 lite device on CPU): the flagged ones raise that kind's error for the BlockSpec on the
line marked ``# here``, the twins lower."""
from __future__ import annotations

import pytest

from pallas_lsp.rules import analyse

HEAD = """\
import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

TPU = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                   abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))

"""

CASES = {
    # A spec shared by every operand; TPU by its compiler params; lane dim 200 of 400.
    "shared_tile_lanes_200": ("PAL640", """\
def blend_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = a_ref[...] * 0.25 + b_ref[...]


def blend(a, b):
    tile = pl.BlockSpec((16, 200), lambda i, j: (i, j))  # here
    return pl.pallas_call(
        blend_kernel,
        out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype),
        grid=(4, 2),
        in_specs=[tile, tile],
        out_specs=tile,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel")),
    )(a, b)


def main():
    a = jnp.zeros((64, 400), jnp.float32)
    with use_abstract_mesh(TPU):
        jax.jit(blend).trace(a, a).lower(lowering_platforms=("tpu",))
    print("lowered")


main()
"""),
    "shared_tile_whole_lanes": (None, """\
def blend_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = a_ref[...] * 0.25 + b_ref[...]


def blend(a, b):
    tile = pl.BlockSpec((16, 400), lambda i, j: (i, j))
    return pl.pallas_call(
        blend_kernel,
        out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype),
        grid=(4, 1),
        in_specs=[tile, tile],
        out_specs=tile,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel")),
    )(a, b)


def main():
    a = jnp.zeros((64, 400), jnp.float32)
    with use_abstract_mesh(TPU):
        jax.jit(blend).trace(a, a).lower(lowering_platforms=("tpu",))
    print("lowered")


main()
"""),
    # An output block of pl.Blocked(12) rows inside a pl.GridSpec under a jitted wrapper.
    "grid_spec_blocked_rows_12": ("PAL640", """\
def fill_kernel(x_ref, o_ref):
    o_ref[...] = jnp.zeros(o_ref.shape, o_ref.dtype) + x_ref[0, 0]


@jax.jit
def fill(x):
    return pl.pallas_call(
        fill_kernel,
        grid_spec=pl.GridSpec(
            grid=(4,),
            in_specs=[pl.BlockSpec((48, 128), lambda i: (0, i))],
            out_specs=pl.BlockSpec((pl.Blocked(12), 128), lambda i: (i, i)),  # here
        ),
        out_shape=jax.ShapeDtypeStruct((48, 512), jnp.int32),
    )(x)


with use_abstract_mesh(TPU):
    fill.trace(jax.ShapeDtypeStruct((48, 512), jnp.int32)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
    "grid_spec_blocked_rows_16": (None, """\
def fill_kernel(x_ref, o_ref):
    o_ref[...] = jnp.zeros(o_ref.shape, o_ref.dtype) + x_ref[0, 0]


@jax.jit
def fill(x):
    return pl.pallas_call(
        fill_kernel,
        grid_spec=pl.GridSpec(
            grid=(4,),
            in_specs=[pl.BlockSpec((48, 128), lambda i: (0, i))],
            out_specs=pl.BlockSpec((pl.Blocked(16), 128), lambda i: (i % 3, i)),
        ),
        out_shape=jax.ShapeDtypeStruct((48, 512), jnp.int32),
    )(x)


with use_abstract_mesh(TPU):
    fill.trace(jax.ShapeDtypeStruct((48, 512), jnp.int32)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
    # PAL641: an int8 output row block of 256 made by a helper inside a pl.GridSpec (int8's 1-D
    # tile is 512; the float32 input block of 256 passes).
    "grid_spec_helper_int8_rows_256": ("PAL641", """\
def row_spec(size):
    return pl.BlockSpec((size,), lambda i: (i,))


def quantize_kernel(x_ref, o_ref):
    o_ref[...] = (x_ref[...] * 127.0).astype(jnp.int8)


def quantize(x):
    return pl.pallas_call(
        quantize_kernel,
        grid_spec=pl.GridSpec(grid=(8,), in_specs=[row_spec(256)],
                              out_specs=row_spec(256)),  # here
        out_shape=jax.ShapeDtypeStruct((2048,), jnp.int8),
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(quantize).trace(jax.ShapeDtypeStruct((2048,), jnp.float32)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
    "grid_spec_helper_int8_rows_512": (None, """\
def row_spec(size):
    return pl.BlockSpec((size,), lambda i: (i,))


def quantize_kernel(x_ref, o_ref):
    o_ref[...] = (x_ref[...] * 127.0).astype(jnp.int8)


def quantize(x):
    return pl.pallas_call(
        quantize_kernel,
        grid_spec=pl.GridSpec(grid=(4,), in_specs=[row_spec(512)],
                              out_specs=row_spec(512)),
        out_shape=jax.ShapeDtypeStruct((2048,), jnp.int8),
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(quantize).trace(jax.ShapeDtypeStruct((2048,), jnp.float32)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
    # PAL641: a float32 chunk of 384 (divides the array, not a power of 2) in a
    # PrefetchScalarGridSpec: args[1], counting the scalar-prefetch operand.
    "prefetch_chunk_384": ("PAL641", """\
def gather_kernel(offsets_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] + offsets_ref[0]


def gather(offsets, x):
    chunk = 384
    return pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(x.shape[0] // chunk,),
            in_specs=[pl.BlockSpec((chunk,), lambda i, off: (i,))],  # here
            out_specs=pl.BlockSpec((chunk,), lambda i, off: (i,)),
        ),
    )(offsets, x)


def main():
    offsets = jnp.zeros((4,), jnp.int32)
    x = jnp.zeros((1536,), jnp.float32)
    with use_abstract_mesh(TPU):
        jax.jit(gather).trace(offsets, x).lower(lowering_platforms=("tpu",))
    print("lowered")


main()
"""),
    "prefetch_chunk_512": (None, """\
def gather_kernel(offsets_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] + offsets_ref[0]


def gather(offsets, x):
    chunk = 512
    return pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(x.shape[0] // chunk,),
            in_specs=[pl.BlockSpec((chunk,), lambda i, off: (i,))],
            out_specs=pl.BlockSpec((chunk,), lambda i, off: (i,)),
        ),
    )(offsets, x)


def main():
    offsets = jnp.zeros((4,), jnp.int32)
    x = jnp.zeros((2048,), jnp.float32)
    with use_abstract_mesh(TPU):
        jax.jit(gather).trace(offsets, x).lower(lowering_platforms=("tpu",))
    print("lowered")


main()
"""),
    # A bad 2-D block checked before a bad 1-D one: JAX raises the 2-D tiling error only.
    "two_d_block_fails_before_one_d": ("PAL640", """\
def scale_kernel(w_ref, b_ref, o_ref):
    o_ref[...] = w_ref[...] * 2.0 + b_ref[0]


def scale(w, b):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(w.shape, w.dtype),
        grid=(4,),
        in_specs=[pl.BlockSpec((16, 100), lambda i: (i, 0)),  # here
                  pl.BlockSpec((100,), lambda i: (0,))],
        out_specs=pl.BlockSpec((16, 100), lambda i: (i, 0)),
    )(w, b)


with use_abstract_mesh(TPU):
    jax.jit(scale).trace(jax.ShapeDtypeStruct((64, 300), jnp.float32),
                         jax.ShapeDtypeStruct((300,), jnp.float32)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
    # PAL643: pl.Buffered(buffer_count=4) on a spec a helper makes from the shape its caller
    # passes, inside a PrefetchScalarGridSpec (the block is a window of the array).
    "helper_spec_buffered_4": ("PAL643", """\
def prefetched(shape, index_map):
    return pl.BlockSpec(shape, index_map, pipeline_mode=pl.Buffered(buffer_count=4))  # here


def rows_kernel(ids_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def pick_rows(ids, x):
    return pl.pallas_call(
        rows_kernel,
        out_shape=jax.ShapeDtypeStruct((64, 256), jnp.float32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(8,),
            in_specs=[prefetched((8, 256), lambda i, ids: (ids[i], 0))],
            out_specs=pl.BlockSpec((8, 256), lambda i, ids: (i, 0)),
        ),
    )(ids, x)


with use_abstract_mesh(TPU):
    jax.jit(pick_rows).trace(jax.ShapeDtypeStruct((8,), jnp.int32),
                             jax.ShapeDtypeStruct((512, 256), jnp.float32)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
    "helper_spec_buffered_2": (None, """\
def prefetched(shape, index_map):
    return pl.BlockSpec(shape, index_map, pipeline_mode=pl.Buffered(buffer_count=2))


def rows_kernel(ids_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def pick_rows(ids, x):
    return pl.pallas_call(
        rows_kernel,
        out_shape=jax.ShapeDtypeStruct((64, 256), jnp.float32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(8,),
            in_specs=[prefetched((8, 256), lambda i, ids: (ids[i], 0))],
            out_specs=pl.BlockSpec((8, 256), lambda i, ids: (i, 0)),
        ),
    )(ids, x)


with use_abstract_mesh(TPU):
    jax.jit(pick_rows).trace(jax.ShapeDtypeStruct((8,), jnp.int32),
                             jax.ShapeDtypeStruct((512, 256), jnp.float32)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
    # PAL641: the 1-D block size is a jit static argument left at its default (128) by the one call;
    # bfloat16's 1-D tile is 256 (raised under jax 0.10.2 and 0.12.0.1).
    "one_d_static_default_chunk_bf16": ("PAL641", """\
def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0)


@functools.partial(jax.jit, static_argnames=("chunk",))
def relu(x, chunk=128):
    return pl.pallas_call(
        relu_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // chunk,),
        in_specs=[pl.BlockSpec((chunk,), lambda i: (i,))],  # here
        out_specs=pl.BlockSpec((chunk,), lambda i: (i,)),
    )(x)


def apply(x):
    return relu(x)


with use_abstract_mesh(TPU):
    jax.jit(apply).trace(jax.ShapeDtypeStruct((2048,), jnp.bfloat16)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
    "one_d_static_chunk_256_passed": (None, """\
def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0)


@functools.partial(jax.jit, static_argnames=("chunk",))
def relu(x, chunk=128):
    return pl.pallas_call(
        relu_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // chunk,),
        in_specs=[pl.BlockSpec((chunk,), lambda i: (i,))],
        out_specs=pl.BlockSpec((chunk,), lambda i: (i,)),
    )(x)


def apply(x):
    return relu(x, chunk=256)


with use_abstract_mesh(TPU):
    jax.jit(apply).trace(jax.ShapeDtypeStruct((2048,), jnp.bfloat16)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
}

# Programs where the tiling is not checked or not known: the rule must stay quiet.
QUIET = {
    # interpret=True does not run the Mosaic checks (ran clean).
    "interpret_mode": """\
def blend_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = a_ref[...] * 0.25 + b_ref[...]


def blend(a, b):
    tile = pl.BlockSpec((16, 200), lambda i, j: (i, j))
    return pl.pallas_call(
        blend_kernel,
        out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype),
        grid=(4, 2),
        in_specs=[tile, tile],
        out_specs=tile,
        interpret=True,
    )(a, b)


a = jnp.zeros((64, 400), jnp.float32)
print(blend(a, a)[0, 0])
""",
    # A TPU grid spec lowered for cuda: the Mosaic TPU checks never run (a squeezed row of a
    # (256, 128) table, which the TPU lowering refuses).
    "tpu_grid_spec_lowered_for_cuda": """\
def lookup_kernel(ids_ref, table_ref, o_ref):
    o_ref[...] = table_ref[...]


def lookup(ids, table):
    return pl.pallas_call(
        lookup_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), table.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1, grid=(8,),
            in_specs=[pl.BlockSpec((None, 128), lambda i, ids: (ids[i], 0))],
            out_specs=pl.BlockSpec((None, 128), lambda i, ids: (i, 0))),
    )(ids, table)


jax.jit(lookup).trace(jax.ShapeDtypeStruct((8,), jnp.int32),
                      jax.ShapeDtypeStruct((256, 128), jnp.float32)).lower(lowering_platforms=("cuda",))
""",
    # A 1-D chunk of 384 in interpret mode: no Mosaic check (ran clean).
    "interpret_mode_1d_chunk_384": """\
def gather_kernel(offsets_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] + offsets_ref[0]


def gather(offsets, x):
    chunk = 384
    return pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(x.shape[0] // chunk,),
            in_specs=[pl.BlockSpec((chunk,), lambda i, off: (i,))],
            out_specs=pl.BlockSpec((chunk,), lambda i, off: (i,)),
        ),
        interpret=True,
    )(offsets, x)


print(gather(jnp.zeros((4,), jnp.int32), jnp.ones((1536,), jnp.float32))[:2])
""",
    # pl.Buffered(3) on a whole-array block with an all-zero index map: forced to single
    # buffering, it lowers.
    "buffered_3_on_whole_array_block": """\
def scale_kernel(w_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * w_ref[...]


def scale(w, x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(4,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (0, 0), pipeline_mode=pl.Buffered(3)),
                  pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    )(w, x)


with use_abstract_mesh(TPU):
    jax.jit(scale).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32),
                         jax.ShapeDtypeStruct((32, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
print("lowered")
""",
    # pl.Buffered(3) without a grid: the pipeline mode is never read (it lowers).
    "buffered_3_without_grid": """\
def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def copy(x):
    return pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec((16, 256), lambda: (0, 0), pipeline_mode=pl.Buffered(3))],
        out_specs=pl.BlockSpec((16, 256), lambda: (0, 0)),
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(copy).trace(jax.ShapeDtypeStruct((16, 256), jnp.float32)).lower(lowering_platforms=("tpu",))
print("lowered")
""",
    # The operands' shapes are not said anywhere (no caller).
    "array_shape_unknown": """\
def blend_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = a_ref[...] * 0.25 + b_ref[...]


def blend(a, b):
    tile = pl.BlockSpec((16, 200), lambda i, j: (i, j))
    return pl.pallas_call(
        blend_kernel,
        out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype),
        grid=(4, 2),
        in_specs=[tile, tile],
        out_specs=tile,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel")),
    )(a, b)


""",
    # Two calls give the static chunk 128 and 256: the size is not one number, so quiet (the 128
    # call raises: a known miss, not a clean program).
    "one_d_static_chunk_callers_disagree": """\
def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0)


@functools.partial(jax.jit, static_argnames=("chunk",))
def relu(x, chunk=128):
    return pl.pallas_call(
        relu_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // chunk,),
        in_specs=[pl.BlockSpec((chunk,), lambda i: (i,))],
        out_specs=pl.BlockSpec((chunk,), lambda i: (i,)),
    )(x)


def apply(x):
    return relu(x)


def apply_wide(x):
    return relu(x, chunk=256)


with use_abstract_mesh(TPU):
    jax.jit(apply).trace(jax.ShapeDtypeStruct((2048,), jnp.bfloat16)).lower(lowering_platforms=("tpu",))
    jax.jit(apply_wide).trace(jax.ShapeDtypeStruct((2048,), jnp.bfloat16)).lower(lowering_platforms=("tpu",))
print("lowered")
""",
}

CODES = {"PAL640", "PAL641", "PAL643"}


def findings(source: str) -> list[tuple[str, int]]:
    return [(f.code, f.span.line) for f in analyse(source, "case.py").findings if f.code in CODES]


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_case_is_flagged_on_its_line_and_each_twin_is_quiet(name: str) -> None:
    code, body = CASES[name]
    source = HEAD + body
    if code is None:
        assert findings(source) == []
        return
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "# here" in text)
    assert findings(source) == [(code, line)]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_unknown_or_unchecked_stays_quiet(name: str) -> None:
    assert findings(HEAD + QUIET[name]) == []


def test_the_tiling_message_says_the_numbers() -> None:
    (finding,) = [f for f in analyse(HEAD + CASES["shared_tile_lanes_200"][1], "case.py").findings
                  if f.code == "PAL640"]
    assert "(16, 200)" in finding.message and "(64, 400)" in finding.message
    assert "last dim 200 is neither a multiple of 128 nor 400" in finding.message


def test_the_1d_tiling_message_says_the_dtype_tile() -> None:
    (finding,) = [f for f in analyse(HEAD + CASES["grid_spec_helper_int8_rows_256"][1], "case.py").findings
                  if f.code == "PAL641"]
    assert "(256,) for outputs, a int8 (2048,) array" in finding.message
    assert "not a power of 2 at least 512 (128 * (32 // 8) for int8)" in finding.message
