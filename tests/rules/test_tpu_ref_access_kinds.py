"""The TPU Ref-access kinds (PAL720-PAL727, ``analysis/ref_access.py``) on code shapes of their
own, each with a clean twin. The kinds raised by jax's Python TPU lowering were lowered for TPU
under jax 0.10.2 and 0.12.0.1 (an abstract TPU v5 lite device on CPU): the flagged programs raise
that kind's error, the twins lower. PAL725 and PAL726 are raised by Mosaic inside libtpu only
(seen on a TPU v5e): their programs here lower on the CPU, and the rules follow the cause the chip
showed (a stride on the lane dim; a traced lane start Mosaic cannot prove a multiple of 128)."""
from __future__ import annotations

import re

import pytest

from pallas_lsp.explain import explain_text
from pallas_lsp.records import default_store
from pallas_lsp.rules import analyse

HEAD = """\
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

TPU = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                   abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))

"""

CASES = {
    # An output left in ANY memory, updated in place with +=: the read comes first.
    "any_output_augassign": ("PAL720", """\
def bump_kernel(x_ref, o_ref):
    o_ref[...] += x_ref[...]  # here


def bump(x):
    return pl.pallas_call(
        bump_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(bump).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
"""),
    # The twin: the ANY input only feeds a sync_copy into VMEM scratch.
    "any_input_sync_copy": (None, """\
def copy_kernel(x_any, o_ref, buf):
    pltpu.sync_copy(x_any.at[0:8], buf)
    o_ref[...] = buf[...] + 1.0


def copy(x):
    return pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(copy).trace(jax.ShapeDtypeStruct((16, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
"""),
    # One element of a VMEM scratch accumulated with +=.
    "scratch_element_augassign": ("PAL721", """\
def count_kernel(x_ref, o_ref, acc):
    acc[...] = jnp.zeros((8, 128), jnp.float32)
    acc[0, 0] += jnp.sum(x_ref[...])  # here
    o_ref[...] = acc[...]


def count(x):
    return pl.pallas_call(
        count_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(count).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
"""),
    "scratch_window_augassign": (None, """\
def count_kernel(x_ref, o_ref, acc):
    acc[...] = jnp.zeros((8, 128), jnp.float32)
    acc[0:1, 0:1] += jnp.sum(x_ref[...]).reshape(1, 1)
    o_ref[...] = acc[...]


def count(x):
    return pl.pallas_call(
        count_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(count).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
"""),
    # An SMEM input of rank 1 read whole.
    "smem_input_read_whole": ("PAL722", """\
def scale_kernel(w_ref, x_ref, o_ref):
    w = w_ref[...]  # here
    o_ref[...] = x_ref[...] * jnp.sum(w)


def scale(w, x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM), pl.BlockSpec(memory_space=pltpu.VMEM)],
    )(w, x)


with use_abstract_mesh(TPU):
    jax.jit(scale).trace(jax.ShapeDtypeStruct((4,), jnp.float32), jax.ShapeDtypeStruct((8, 128), jnp.float32)).lower(
        lowering_platforms=("tpu",))
"""),
    "smem_input_read_scalar": (None, """\
def scale_kernel(w_ref, x_ref, o_ref):
    w = w_ref[2]
    o_ref[...] = x_ref[...] * w


def scale(w, x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM), pl.BlockSpec(memory_space=pltpu.VMEM)],
    )(w, x)


with use_abstract_mesh(TPU):
    jax.jit(scale).trace(jax.ShapeDtypeStruct((4,), jnp.float32), jax.ShapeDtypeStruct((8, 128), jnp.float32)).lower(
        lowering_platforms=("tpu",))
"""),
    # Rows picked with a broadcasted_iota index vector.
    "iota_rows_gather": ("PAL723", """\
def even_kernel(x_ref, o_ref):
    rows = lax.broadcasted_iota(jnp.int32, (8,), 0)
    o_ref[...] = x_ref[rows * 2, :]  # here


def even(x):
    return pl.pallas_call(even_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x)


with use_abstract_mesh(TPU):
    jax.jit(even).trace(jax.ShapeDtypeStruct((16, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
"""),
    "grid_row_scalar_index": (None, """\
def row_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[pl.program_id(0) * 2, :][None, :] + jnp.zeros((8, 128), jnp.float32)


def row(x):
    return pl.pallas_call(row_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32), grid=(4,),
                          in_specs=[pl.BlockSpec((16, 128), lambda i: (0, 0))],
                          out_specs=pl.BlockSpec((8, 128), lambda i: (0, 0)))(x)


with use_abstract_mesh(TPU):
    jax.jit(row).trace(jax.ShapeDtypeStruct((16, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
"""),
    # A Python step slice in the view handed to a DMA.
    "step_slice_view_dma": ("PAL724", """\
def evens_kernel(x_any, o_ref, buf):
    pltpu.sync_copy(x_any.at[0:16:2], buf)  # here
    o_ref[...] = buf[...]


def evens(x):
    return pl.pallas_call(
        evens_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(evens).trace(jax.ShapeDtypeStruct((16, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
"""),
    "unit_slice_view_dma": (None, """\
def evens_kernel(x_any, o_ref, buf):
    pltpu.sync_copy(x_any.at[0:8], buf)
    o_ref[...] = buf[...]


def evens(x):
    return pl.pallas_call(
        evens_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(evens).trace(jax.ShapeDtypeStruct((16, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
"""),
    # A lane stride after an ellipsis, on a 3-D block of 256 lanes (a strided read of a Ref whose
    # last dim is not 128: the chip refused those whichever dim the stride was on).
    "ellipsis_lane_stride": ("PAL725", """\
def pick_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[..., pl.ds(0, 128, stride=2)]  # here


def pick(x):
    return pl.pallas_call(pick_kernel, out_shape=jax.ShapeDtypeStruct((2, 8, 128), jnp.float32))(x)


with use_abstract_mesh(TPU):
    jax.jit(pick).trace(jax.ShapeDtypeStruct((2, 8, 256), jnp.float32)).lower(lowering_platforms=("tpu",))
"""),
    # The twin: the stride on the sublanes of a Ref whose last dim is 128.
    "sublane_stride_128_lanes": (None, """\
def pick_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[:, pl.ds(0, 8, stride=2), :]


def pick(x):
    return pl.pallas_call(pick_kernel, out_shape=jax.ShapeDtypeStruct((2, 8, 128), jnp.float32))(x)


with use_abstract_mesh(TPU):
    jax.jit(pick).trace(jax.ShapeDtypeStruct((2, 16, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
"""),
    # A start i * 64 + 64: a sum with a term Mosaic cannot prove.
    "sum_start_unproven": ("PAL726", """\
def slide_kernel(x_ref, o_ref):
    start = pl.program_id(0) * 64 + 64
    o_ref[...] = x_ref[:, pl.ds(start, 128)]  # here


def slide(x):
    return pl.pallas_call(slide_kernel, out_shape=jax.ShapeDtypeStruct((8, 512), jnp.float32), grid=(3,),
                          in_specs=[pl.BlockSpec((8, 512), lambda i: (0, 0))],
                          out_specs=pl.BlockSpec((8, 128), lambda i: (0, i)))(x)


with use_abstract_mesh(TPU):
    jax.jit(slide).trace(jax.ShapeDtypeStruct((8, 512), jnp.float32)).lower(lowering_platforms=("tpu",))
"""),
    "sum_start_proven": (None, """\
def slide_kernel(x_ref, o_ref):
    start = pl.program_id(0) * 256 + 128
    o_ref[...] = x_ref[:, pl.ds(start, 128)]


def slide(x):
    return pl.pallas_call(slide_kernel, out_shape=jax.ShapeDtypeStruct((8, 256), jnp.float32), grid=(2,),
                          in_specs=[pl.BlockSpec((8, 640), lambda i: (0, 0))],
                          out_specs=pl.BlockSpec((8, 128), lambda i: (0, i)))(x)


with use_abstract_mesh(TPU):
    jax.jit(slide).trace(jax.ShapeDtypeStruct((8, 640), jnp.float32)).lower(lowering_platforms=("tpu",))
"""),
    # A masked store into int8 scratch.
    "int8_scratch_masked_store": ("PAL727", """\
def flags_kernel(x_ref, o_ref, flags):
    flags[...] = jnp.zeros((32, 128), jnp.int8)
    pltpu.store(flags, jnp.ones((32, 128), jnp.int8), mask=x_ref[...] > 0)  # here
    o_ref[...] = flags[...].astype(jnp.float32)


def flags_of(x):
    return pl.pallas_call(
        flags_kernel,
        out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
        scratch_shapes=[pltpu.VMEM((32, 128), jnp.int8)],
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(flags_of).trace(jax.ShapeDtypeStruct((32, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
"""),
    "f32_scratch_masked_store": (None, """\
def flags_kernel(x_ref, o_ref, flags):
    flags[...] = jnp.zeros((32, 128), jnp.float32)
    pltpu.store(flags, jnp.ones((32, 128), jnp.float32), mask=x_ref[...] > 0)
    o_ref[...] = flags[...]


def flags_of(x):
    return pl.pallas_call(
        flags_kernel,
        out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
        scratch_shapes=[pltpu.VMEM((32, 128), jnp.float32)],
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(flags_of).trace(jax.ShapeDtypeStruct((32, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
"""),
}

CODES = {f"PAL72{i}" for i in range(8)}


def _findings(body: str):
    result = analyse(HEAD + body, "ref_access_case.py")
    return [f for f in result.findings if f.code in CODES]


def _marked_line(body: str) -> int:
    lines = (HEAD + body).splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.rstrip().endswith("# here"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_shape_is_flagged_on_its_line_and_each_twin_is_quiet(name: str) -> None:
    code, body = CASES[name]
    found = _findings(body)
    if code is None:
        assert found == [], [f.message for f in found]
    else:
        assert [(f.code, f.span.line) for f in found] == [(code, _marked_line(body))], [f.message for f in found]


@pytest.mark.parametrize("name", [n for n, (code, _) in CASES.items() if code is not None])
def test_interpret_mode_never_reports(name: str) -> None:
    _, body = CASES[name]
    interpreted, n = re.subn(r"pl\.pallas_call\((\s*)(\w+),", r"pl.pallas_call(\1\2, interpret=True,", body, count=1)
    assert n == 1
    assert _findings(interpreted) == []


def test_messages_carry_the_numbers_and_dtypes() -> None:
    (masked,) = _findings(CASES["int8_scratch_masked_store"][1])
    assert "int8" in masked.message and "8-bit" in masked.message
    (stride,) = _findings(CASES["ellipsis_lane_stride"][1])
    assert "stride 2" in stride.message and "last dim is 256" in stride.message
    assert "The last dim size is not 128 in original base memref" in stride.message
    (unproven,) = _findings(CASES["sum_start_unproven"][1])
    assert "dimension 2" not in unproven.message and "dimension 1 is a multiple of 128" in unproven.message


SHIFTED = """\
def slide_kernel(x_ref, o_ref):
    start = (pl.program_id(0) * 2) << 6
    o_ref[...] = x_ref[:, pl.ds(start, 128)]


def slide(x):
    return pl.pallas_call(slide_kernel, out_shape=jax.ShapeDtypeStruct((8, 512), jnp.float32), grid=(4,),
                          in_specs=[pl.BlockSpec((8, 512), lambda i: (0, 0))],
                          out_specs=pl.BlockSpec((8, 128), lambda i: (0, i)))(x)


with use_abstract_mesh(TPU):
    jax.jit(slide).trace(jax.ShapeDtypeStruct((8, 512), jnp.float32)).lower(lowering_platforms=("tpu",))
"""


def test_a_start_shown_a_multiple_of_128_gets_multiple_of_and_others_get_no_fix() -> None:
    (shifted,) = _findings(SHIFTED)
    (fix,) = shifted.fixes
    assert fix.safe and [e.new_text for e in fix.edits] == ["pl.multiple_of(start, 128)"]
    (unproven,) = _findings(CASES["sum_start_unproven"][1])
    assert unproven.fixes == ()


# The first lines the chip printed (corpus-tpu's and this project's chip labels, TPU v5e, jax 0.10.2).
CHIP_MESSAGES = {
    "ValueError: Loads are only allowed on VMEM and SMEM references. ANY memory space can only be accessed "
    "using async_copy.": "tpu-any-memory-load-store",
    "ValueError: Loads and stores are only allowed on VMEM and SMEM references.": "tpu-any-memory-load-store",
    "ValueError: Cannot store scalars to VMEM": "tpu-scalar-store-vmem",
    "ValueError: Can only store scalars to SMEM": "tpu-smem-vector-access",
    "ValueError: Can only load scalars from SMEM": "tpu-smem-vector-access",
    "ValueError: Cannot do int indexing on TPU": "tpu-int-indexing",
    "NotImplementedError: Strided slices of references are unsupported.": "tpu-strided-ref-slice",
    "jax._src.pallas.mosaic.error_handling.MosaicError: INTERNAL: Mosaic failed to compile TPU kernel: "
    "Not Implemented: Stride on last dim is not 1": "tpu-strided-lane-access",
    "MosaicError: INTERNAL: Mosaic failed to compile TPU kernel: Not Implemented: The last dim size is not 128 "
    "in original base memref": "tpu-strided-lane-access",
    "MosaicError: INTERNAL: Mosaic failed to compile TPU kernel: E2003: CompileTimeMosaicUnprovenMemoryAccess"
    "Alignment: cannot statically prove that index in dimension 1 is a multiple of 128": "tpu-unproven-lane-alignment",
    "NotImplementedError: masked swap with non-32-bit data": "tpu-masked-store-non-32-bit",
}


@pytest.mark.parametrize("message", sorted(CHIP_MESSAGES))
def test_explain_names_the_kind_of_each_pasted_chip_error(message: str) -> None:
    assert [e.record.slug for e in explain_text(message, default_store())][:1] == [CHIP_MESSAGES[message]]
