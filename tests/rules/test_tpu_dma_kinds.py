"""Issue 41's kinds on code shapes of their own, each with a clean twin: PAL740
tpu-core-parallel-exceeds-cores (Mosaic inside libtpu, shown on a TPU v5e with jax 0.10.2),
PAL730 tpu-dma-mismatch, PAL731 tpu-dma-wait-regular-semaphore and PAL616 semaphore-not-scalar
(jax's Python and Mosaic's verifier: every flagged program here was lowered for TPU on a CPU
under jax 0.10.2 and 0.12.0.1 and raised on the line marked ``# here``; its twin lowered)."""
from __future__ import annotations

import pytest

from pallas_lsp.chips import ChipClaims
from pallas_lsp.records import builtin_records
from pallas_lsp.rules import analyse

from .test_tpu_block_kinds import HEAD

CODES = ("PAL740", "PAL730", "PAL731", "PAL616")

CASES = {
    # A module-level semantics list; the core axis is the second, bound from a constant.
    "core_parallel_second_axis_list_constant": ("PAL740", """\
CORES = 2
SEMANTICS = [pltpu.ARBITRARY, pltpu.CORE_PARALLEL]  # here


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


def double(x):
    return pl.pallas_call(
        double_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(4, CORES),
        in_specs=[pl.BlockSpec((8, 128), lambda i, c: (i, c))],
        out_specs=pl.BlockSpec((8, 128), lambda i, c: (i, c)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=SEMANTICS),
    )(x)
"""),
    "core_parallel_second_axis_bound_one": (None, """\
CORES = 1
SEMANTICS = [pltpu.ARBITRARY, pltpu.CORE_PARALLEL]


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


def double(x):
    return pl.pallas_call(
        double_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(4, CORES),
        in_specs=[pl.BlockSpec((8, 128), lambda i, c: (i, c))],
        out_specs=pl.BlockSpec((8, 128), lambda i, c: (i, c)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=SEMANTICS),
    )(x)
"""),
    # The enum's own name, in a GridSpec launch, the grid built by arithmetic.
    "core_parallel_enum_member_grid_spec": ("PAL740", """\
def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def copy(x):
    return pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct((64, 128), jnp.float32),
        grid_spec=pl.GridSpec(grid=(64 // 16,), in_specs=[pl.BlockSpec((16, 128), lambda i: (i, 0))],
                              out_specs=pl.BlockSpec((16, 128), lambda i: (i, 0))),
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=(pltpu.GridDimensionSemantics.CORE_PARALLEL,)),  # here
    )(x)
"""),
    "parallel_enum_member_grid_spec": (None, """\
def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def copy(x):
    return pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct((64, 128), jnp.float32),
        grid_spec=pl.GridSpec(grid=(64 // 16,), in_specs=[pl.BlockSpec((16, 128), lambda i: (i, 0))],
                              out_specs=pl.BlockSpec((16, 128), lambda i: (i, 0))),
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=(pltpu.GridDimensionSemantics.PARALLEL,)),
    )(x)
"""),
    # PAL731: a helper starts the copy; the kernel waits on a re-made descriptor, the usual idiom.
    "dma_wait_regular_remade_descriptor": ("PAL731", """\
def start(src, dst, sem):
    pltpu.make_async_copy(src, dst, sem).start()


def rows_kernel(x_hbm, o_ref, buf, sem):
    start(x_hbm, buf, sem)
    pltpu.make_async_copy(x_hbm, buf, sem).wait()
    o_ref[...] = buf[...] * 4


def rows(x):
    return pl.pallas_call(
        rows_kernel,
        out_shape=jax.ShapeDtypeStruct((32, 128), jnp.bfloat16),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=(pltpu.VMEM((32, 128), jnp.bfloat16), pltpu.SemaphoreType.REGULAR),  # here
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(rows).trace(jax.ShapeDtypeStruct((32, 128), jnp.bfloat16)).lower(lowering_platforms=("tpu",))
"""),
    "dma_wait_dma_semaphore_remade_descriptor": (None, """\
def start(src, dst, sem):
    pltpu.make_async_copy(src, dst, sem).start()


def rows_kernel(x_hbm, o_ref, buf, sem):
    start(x_hbm, buf, sem)
    pltpu.make_async_copy(x_hbm, buf, sem).wait()
    o_ref[...] = buf[...] * 4


def rows(x):
    return pl.pallas_call(
        rows_kernel,
        out_shape=jax.ShapeDtypeStruct((32, 128), jnp.bfloat16),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=(pltpu.VMEM((32, 128), jnp.bfloat16), pltpu.SemaphoreType.DMA),
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(rows).trace(jax.ShapeDtypeStruct((32, 128), jnp.bfloat16)).lower(lowering_platforms=("tpu",))
"""),
    # PAL616: a started copy whose semaphore is a slot array indexed once too few times.
    "dma_start_row_of_3d_semaphores": ("PAL616", """\
def grid_kernel(x_hbm, o_ref, buf, sems):
    copy = pltpu.make_async_copy(x_hbm, buf, sems.at[0])  # here
    copy.start()
    copy.wait()
    o_ref[...] = buf[...]


def grid_copy(x):
    return pl.pallas_call(
        grid_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 256), jnp.int32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 256), jnp.int32), pltpu.SemaphoreType.DMA((2, 2, 2))],
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(grid_copy).trace(jax.ShapeDtypeStruct((8, 256), jnp.int32)).lower(lowering_platforms=("tpu",))
"""),
    "dma_start_one_of_3d_semaphores": (None, """\
def grid_kernel(x_hbm, o_ref, buf, sems):
    copy = pltpu.make_async_copy(x_hbm, buf, sems.at[0, 1, 1])
    copy.start()
    copy.wait()
    o_ref[...] = buf[...]


def grid_copy(x):
    return pl.pallas_call(
        grid_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 256), jnp.int32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 256), jnp.int32), pltpu.SemaphoreType.DMA((2, 2, 2))],
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(grid_copy).trace(jax.ShapeDtypeStruct((8, 256), jnp.int32)).lower(lowering_platforms=("tpu",))
"""),
    # PAL616 under interpret=True: a run_scoped REGULAR((2,)) array waited whole.
    "wait_scoped_regular_array_interpreted": ("PAL616", """\
def flag_kernel(x_ref, o_ref):
    def body(flags):
        pl.semaphore_signal(flags.at[0], 1)
        pl.semaphore_wait(flags, 1)  # here
        o_ref[...] = x_ref[...]

    pl.run_scoped(body, pltpu.SemaphoreType.REGULAR((2,)))


x = jnp.ones((8, 128), jnp.float32)
pl.pallas_call(flag_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
"""),
    "wait_scoped_regular_one_interpreted": (None, """\
def flag_kernel(x_ref, o_ref):
    def body(flags):
        pl.semaphore_signal(flags.at[0], 1)
        pl.semaphore_wait(flags.at[0], 1)
        o_ref[...] = x_ref[...]

    pl.run_scoped(body, pltpu.SemaphoreType.REGULAR((2,)))


x = jnp.ones((8, 128), jnp.float32)
pl.pallas_call(flag_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
"""),
    # PAL730: a pl.ds row window of a float32 HBM array copied into a bfloat16 scratch (async_copy).
    "dma_f32_rows_into_bf16_buffer": ("PAL730", """\
def shift_kernel(x_hbm, o_ref, buf, sem):
    pltpu.async_copy(x_hbm.at[pl.ds(8, 8)], buf, sem).wait()  # here
    o_ref[...] = buf[...].astype(jnp.float32)


def shift(x):
    return pl.pallas_call(
        shift_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.bfloat16), pltpu.SemaphoreType.DMA(())],
    )(x)


def main():
    with use_abstract_mesh(TPU):
        jax.jit(shift).trace(jax.ShapeDtypeStruct((16, 128), jnp.float32)).lower(lowering_platforms=("tpu",))


main()
"""),
    "dma_f32_rows_into_f32_buffer": (None, """\
def shift_kernel(x_hbm, o_ref, buf, sem):
    pltpu.async_copy(x_hbm.at[pl.ds(8, 8)], buf, sem).wait()
    o_ref[...] = buf[...].astype(jnp.float32)


def shift(x):
    return pl.pallas_call(
        shift_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA(())],
    )(x)


def main():
    with use_abstract_mesh(TPU):
        jax.jit(shift).trace(jax.ShapeDtypeStruct((16, 128), jnp.float32)).lower(lowering_platforms=("tpu",))


main()
"""),
    # PAL730: an integer index then pl.ds(0, 4) leave (4, 128), copied into an (8, 128) buffer.
    "dma_int_index_then_half_rows": ("PAL730", """\
def first_kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm.at[0, pl.ds(0, 4)], buf, sem)  # here
    copy.start()
    copy.wait()
    o_ref[...] = buf[...]


def first(x):
    return pl.pallas_call(
        first_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.int32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.int32), pltpu.SemaphoreType.DMA(())],
    )(x)


def main():
    with use_abstract_mesh(TPU):
        jax.jit(first).trace(jax.ShapeDtypeStruct((2, 8, 128), jnp.int32)).lower(lowering_platforms=("tpu",))


main()
"""),
    "dma_int_index_then_all_rows": (None, """\
def first_kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm.at[0, pl.ds(0, 8)], buf, sem)
    copy.start()
    copy.wait()
    o_ref[...] = buf[...]


def first(x):
    return pl.pallas_call(
        first_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.int32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.int32), pltpu.SemaphoreType.DMA(())],
    )(x)


def main():
    with use_abstract_mesh(TPU):
        jax.jit(first).trace(jax.ShapeDtypeStruct((2, 8, 128), jnp.int32)).lower(lowering_platforms=("tpu",))


main()
"""),
    # PAL730: `...` keeps the rows; a 128-lane window into a 256-lane scratch (sync_copy).
    "dma_ellipsis_lanes_into_wide_buffer": ("PAL730", """\
LANES = 128


def lanes_kernel(x_hbm, o_ref, buf):
    pltpu.sync_copy(x_hbm.at[..., pl.ds(LANES, LANES)], buf)  # here
    o_ref[...] = buf[...]


def lanes(x):
    return pl.pallas_call(
        lanes_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 2 * LANES), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 2 * LANES), jnp.float32)],
    )(x)


def main():
    with use_abstract_mesh(TPU):
        jax.jit(lanes).trace(jax.ShapeDtypeStruct((8, 2 * LANES), jnp.float32)).lower(lowering_platforms=("tpu",))


main()
"""),
    "dma_ellipsis_lanes_into_lane_buffer": (None, """\
LANES = 128


def lanes_kernel(x_hbm, o_ref, buf):
    pltpu.sync_copy(x_hbm.at[..., pl.ds(LANES, LANES)], buf)
    o_ref[...] = buf[...]


def lanes(x):
    return pl.pallas_call(
        lanes_kernel,
        out_shape=jax.ShapeDtypeStruct((8, LANES), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, LANES), jnp.float32)],
    )(x)


def main():
    with use_abstract_mesh(TPU):
        jax.jit(lanes).trace(jax.ShapeDtypeStruct((8, 2 * LANES), jnp.float32)).lower(lowering_platforms=("tpu",))


main()
"""),
    # PAL730: a VMEM buffer of 8 rows written back into rows 2:6 of a pl.ANY output.
    "dma_writeback_slice_of_output": ("PAL730", """\
def fill_kernel(o_hbm, buf, sem):
    buf[...] = jnp.ones((8, 128), jnp.float32)
    pltpu.async_copy(buf, o_hbm.at[2:6], sem).wait()  # here


def fill():
    return pl.pallas_call(
        fill_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA(())],
    )()


def main():
    with use_abstract_mesh(TPU):
        jax.jit(fill).trace().lower(lowering_platforms=("tpu",))


main()
"""),
    "dma_writeback_eight_rows_of_output": (None, """\
def fill_kernel(o_hbm, buf, sem):
    buf[...] = jnp.ones((8, 128), jnp.float32)
    pltpu.async_copy(buf, o_hbm.at[2:10], sem).wait()


def fill():
    return pl.pallas_call(
        fill_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA(())],
    )()


def main():
    with use_abstract_mesh(TPU):
        jax.jit(fill).trace().lower(lowering_platforms=("tpu",))


main()
"""),
}

QUIET = {
    # PAL616: a descriptor of the whole array that is never started signals nothing.
    "dma_array_semaphore_never_started": """\
def rows_kernel(x_hbm, o_ref, buf, sems):
    pltpu.make_async_copy(x_hbm, buf, sems)
    o_ref[...] = jnp.zeros_like(o_ref)


def rows(x):
    return pl.pallas_call(
        rows_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
    )(x)
""",
    # PAL616: the index is a slice: the shape left is not followed here.
    "dma_semaphore_sliced": """\
def rows_kernel(x_hbm, o_ref, buf, sems):
    pltpu.async_copy(x_hbm, buf, sems.at[pl.ds(0, 1)]).wait()
    o_ref[...] = buf[...]


def rows(x):
    return pl.pallas_call(
        rows_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
    )(x)
""",
    # PAL731 is about the wait: this copy of a REGULAR semaphore is never waited on, and jax's
    # Python checks the type only there (what the chip does with it is not claimed).
    "dma_regular_semaphore_never_waited": """\
def rows_kernel(x_hbm, o_ref, buf, sem):
    pltpu.make_async_copy(x_hbm, buf, sem).start()
    o_ref[...] = buf[...]


def rows(x):
    return pl.pallas_call(
        rows_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.REGULAR],
    )(x)
""",
    # Interpret mode is not claimed for PAL731 (a compiled-TPU kind).
    "dma_wait_regular_interpreted": """\
def rows_kernel(x_hbm, o_ref, buf, sem):
    cp = pltpu.make_async_copy(x_hbm, buf, sem)
    cp.start()
    cp.wait()
    o_ref[...] = buf[...]


def rows(x):
    return pl.pallas_call(
        rows_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.REGULAR],
        interpret=True,
    )(x)
""",
    # The semaphore comes from a parameter the code does not spell: unknown, never guessed.
    "dma_wait_semaphore_type_unknown": """\
def rows_kernel(x_hbm, o_ref, buf, sem):
    cp = pltpu.make_async_copy(x_hbm, buf, sem)
    cp.start()
    cp.wait()
    o_ref[...] = buf[...]


def rows(x, sem_type):
    return pl.pallas_call(
        rows_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), sem_type],
        compiler_params=pltpu.CompilerParams(),
    )(x)
""",
    # The bound is a jit argument's shape the code does not spell: unknown, never guessed.
    "core_parallel_bound_unknown": """\
def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def scale(x, n):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(n,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=(pltpu.CORE_PARALLEL,)),
    )(x)
""",
    # Interpret mode never compiles the kernel: no core count is checked.
    "core_parallel_interpreted": """\
def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def scale(x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(2,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=(pltpu.CORE_PARALLEL,)),
        interpret=True,
    )(x)
""",
    # Two core-parallel axes: jax's Python refuses that first ("cannot contain multiple core
    # sharding dimensions"), another error.
    "two_core_parallel_axes": """\
def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def scale(x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(2, 2),
        in_specs=[pl.BlockSpec((8, 128), lambda i, j: (i, j))],
        out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("core_parallel", "core_parallel")),
    )(x)
""",
    # The semantics' length is not the grid's: PAL642's error comes first.
    "core_parallel_length_mismatch": """\
def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def scale(x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(2, 2),
        in_specs=[pl.BlockSpec((8, 128), lambda i, j: (i, j))],
        out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=(pltpu.CORE_PARALLEL,)),
    )(x)
""",
    # PAL730: int32 into uint32 verifies (Mosaic's integer memrefs are signless; lowered).
    "dma_int32_into_uint32_signless": """\
def first_kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy(x_hbm.at[0, pl.ds(0, 8)], buf, sem)
    copy.start()
    copy.wait()
    o_ref[...] = buf[...]


def first(x):
    return pl.pallas_call(
        first_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.int32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.uint32), pltpu.SemaphoreType.DMA(())],
    )(x)


def main():
    with use_abstract_mesh(TPU):
        jax.jit(first).trace(jax.ShapeDtypeStruct((2, 8, 128), jnp.int32)).lower(lowering_platforms=("tpu",))


main()
""",
    # PAL730: the operand's shape is not written anywhere: quiet.
    "dma_operand_shape_unknown": """\
def copy_kernel(x_hbm, o_ref, buf, sem):
    pltpu.async_copy(x_hbm, buf, sem).wait()
    o_ref[...] = buf[...]


def copy(x):
    return pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA(())],
    )(x)
""",
    # PAL730: emit_pipeline hands its body block windows, not the Refs the call passes (lowered).
    "dma_in_emit_pipeline_body": """\
def outer_kernel(x_hbm, o_hbm):
    @functools.partial(pltpu.emit_pipeline, grid=(4,),
                       in_specs=pl.BlockSpec((8, 128), lambda i: (0, i)),
                       out_specs=pl.BlockSpec((8, 512), lambda i: (0, 0), memory_space=pltpu.HBM))
    def pipeline(x_ref, o_ref):
        i = pl.program_id(0)
        pltpu.sync_copy(x_ref, o_ref.at[:, pl.ds(i * 128, 128)])

    pipeline(x_hbm, o_hbm)


def outer(x):
    return pl.pallas_call(
        outer_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 512), jnp.int32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.HBM)],
        out_specs=pl.BlockSpec(memory_space=pltpu.HBM),
    )(x)


def main():
    with use_abstract_mesh(TPU):
        jax.jit(outer).trace(jax.ShapeDtypeStruct((8, 512), jnp.int32)).lower(lowering_platforms=("tpu",))


main()
""",
}


def findings(source: str) -> list[tuple[str, int]]:
    return sorted((f.code, f.span.line) for f in analyse(source, "case.py").findings if f.code in CODES)


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
def test_unchecked_or_unknown_stays_quiet(name: str) -> None:
    assert findings(HEAD + QUIET[name]) == []


def _one(name: str, code: str):
    (finding,) = [f for f in analyse(HEAD + CASES[name][1], "case.py").findings if f.code == code]
    return finding


def test_core_parallel_message_says_the_axis_the_bound_and_the_cores() -> None:
    finding = _one("core_parallel_second_axis_list_constant", "PAL740")
    assert "grid axis 1 is CORE_PARALLEL with 2 iterations, but a TPU v5e has 1 TensorCore" in finding.message
    assert ("Core-parallel dimension 1 has iteration bound: 2, which is greater than the number of active cores: 1."
            in finding.message)
    assert (HEAD.count("\n") + 13, "grid axis 1: 2 iterations") in [(r.span.line, r.message) for r in finding.related]


def test_core_parallel_fix_uses_parallel_in_the_spelling_of_the_code() -> None:
    (fix,) = _one("core_parallel_second_axis_list_constant", "PAL740").fixes
    assert fix.safe and [e.new_text for e in fix.edits] == ["pltpu.PARALLEL"]
    (enum_fix,) = _one("core_parallel_enum_member_grid_spec", "PAL740").fixes
    assert [e.new_text for e in enum_fix.edits] == ["pltpu.GridDimensionSemantics.PARALLEL"]


def test_core_parallel_is_claimed_for_the_v5e_only() -> None:
    claims = ChipClaims.of(builtin_records()[0])
    finding = _one("core_parallel_second_axis_list_constant", "PAL740")
    assert claims.claimed([finding], None)[0].message.endswith("(seen on TPU v5e, jax 0.10.2)")
    assert claims.claimed([finding], "v5e") == [finding]
    for other in ("v4", "v5p", "v6e", "v7x"):  # (nobody ran a chip of these: nothing is claimed)
        assert claims.claimed([finding], other) == []


def test_dma_wait_regular_message_and_fix() -> None:
    finding = _one("dma_wait_regular_remade_descriptor", "PAL731")
    assert "waited on with a semaphore allocated as SemaphoreType.REGULAR" in finding.message
    assert "dma_wait requires a DMA semaphore, but got a regular semaphore" in finding.message
    (fix,) = finding.fixes
    assert fix.safe and [e.new_text for e in fix.edits] == ["pltpu.SemaphoreType.DMA"]


def test_explain_names_each_kind_from_the_pasted_chip_message() -> None:
    """The messages the chip run printed (corpus-tpu labels) find their records."""
    from pallas_lsp.records import default_store

    store = default_store()
    pasted = {
        "tpu-dma-wait-regular-semaphore": "ValueError: dma_wait requires a DMA semaphore, but got a regular semaphore."
                                          " Use pl.semaphore_wait() instead.",
        "tpu-core-parallel-exceeds-cores": "jax.errors.JaxRuntimeError: INVALID_ARGUMENT: Mosaic failed to compile "
                                           "TPU kernel: Core-parallel dimension 0 has iteration bound: 2, which is "
                                           "greater than the number of active cores: 1.",
    }
    for slug, text in pasted.items():
        assert [r.slug for r, _ in store.match(text)][:1] == [slug], slug


def test_semaphore_not_scalar_message_says_the_shape_left() -> None:
    finding = _one("dma_start_row_of_3d_semaphores", "PAL616")
    assert "Cannot signal on a non-()-shaped semaphore: (2, 2)" in finding.message
    assert "`sems.at[0]` is an array of shape (2, 2)" in finding.message
    assert any("SemaphoreType.DMA of shape (2, 2, 2)" in r.message for r in finding.related)
    waited = _one("wait_scoped_regular_array_interpreted", "PAL616")
    assert "Cannot wait on a non-()-shaped semaphore: (2,)" in waited.message


def test_explain_the_semaphore_shape_message() -> None:
    from pallas_lsp.records import default_store

    for text in ("ValueError: Cannot signal on a non-()-shaped semaphore: (2,)",
                 "ValueError: Cannot wait on a non-()-shaped semaphore: (2, 2)"):
        assert [r.slug for r, _ in default_store().match(text)][:1] == ["semaphore-not-scalar"]


def test_dma_mismatch_message_says_both_ends() -> None:
    finding = _one("dma_f32_rows_into_bf16_buffer", "PAL730")
    assert "copies float32 `x_hbm` into bfloat16 `buf`" in finding.message
    assert "'tpu.enqueue_dma' op DMA source and target element type mismatch" in finding.message
    shaped = _one("dma_int_index_then_half_rows", "PAL730")
    assert "a (4, 128) window of `x_hbm` into a (8, 128) window of `buf`" in shaped.message
    assert any("where the target `buf` is declared" in r.message for r in shaped.related)


def test_explain_the_dma_mismatch_messages() -> None:
    """The two wordings the chip printed (corpus-tpu labels dma__dtype_mismatch, dma__shape_mismatch)."""
    from pallas_lsp.records import default_store

    prefix = ("VerificationError: Pallas encountered an internal verification error. Please file a bug at "
              "https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.enqueue_dma' op ")
    for tail in ("DMA source and target element type mismatch", "DMA source and target shape mismatch."):
        assert [r.slug for r, _ in default_store().match(prefix + tail)][:1] == ["tpu-dma-mismatch"]
