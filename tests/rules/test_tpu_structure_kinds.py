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


# --- the fixes of PAL642, PAL643 and PAL645 (issue 40): each fixed program is analysed again, and
# the programs marked "lowered" were lowered for TPU on the CPU under jax 0.10.2 and 0.12.0.1.

FIXES = {
    # PAL643: a helper's BlockSpec with a literal quadruple buffer: its count becomes 2 (lowered).
    "buffered_4_in_helper": ("PAL643", lowered("""\
def banded(rows):
    return pl.BlockSpec((rows, 128), lambda i: (i, 0), pipeline_mode=pl.Buffered(4))


def shift_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 3


def shift(x):
    return pl.pallas_call(
        shift_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 16,),
        in_specs=[banded(16)],
        out_specs=pl.BlockSpec((16, 128), lambda i: (i, 0)),
    )(x)
""", "shift", "jax.ShapeDtypeStruct((64, 128), jnp.int32)"), "pipeline_mode=pl.Buffered(2))"),
    # PAL642: a PrefetchScalarGridSpec's 2-D grid with one pltpu constant: padded with pltpu.ARBITRARY.
    "prefetch_grid_one_constant": ("PAL642", lowered("""\
def gather_kernel(idx_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


def gather(idx, x):
    return pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct((32, 256), x.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(4, 2),
            in_specs=[pl.BlockSpec((8, 128), lambda i, j, idx: (idx[i], j))],
            out_specs=pl.BlockSpec((8, 128), lambda i, j, idx: (i, j)),
        ),
        compiler_params=pltpu.CompilerParams(dimension_semantics=(pltpu.PARALLEL,)),
    )(idx, x)
""", "gather", "jax.ShapeDtypeStruct((4,), jnp.int32), jax.ShapeDtypeStruct((64, 256), jnp.float32)"),
        "dimension_semantics=(pltpu.PARALLEL, pltpu.ARBITRARY))"),
    # PAL642: no entries at all for a decorated 1-D launch: a one-entry tuple (trailing comma).
    "decorated_empty_semantics": ("PAL642", lowered("""\
@functools.partial(
    pl.pallas_call,
    out_shape=jax.ShapeDtypeStruct((64, 128), jnp.float32),
    grid=(8,),
    in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=()),
)
def halve(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5
""", "halve", "jax.ShapeDtypeStruct((64, 128), jnp.float32)"), 'dimension_semantics=("arbitrary",))'),
    # PAL642: three arbitrary entries for a 1-D grid: the two extra dropped, safe (lowered).
    "three_arbitrary_for_1d": ("PAL642", lowered("""\
def halve_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def halve(x):
    return pl.pallas_call(
        halve_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(8,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=["arbitrary", "arbitrary", "parallel"]),
    )(x)
""", "halve", "jax.ShapeDtypeStruct((64, 128), jnp.float32)"), 'dimension_semantics=["arbitrary"])'),
    # PAL645: an inline block shape () for an int32 offset on a grid-less launch: an SMEM spec (lowered;
    # a grid-less 0-d SMEM operand compiled on the chip, tpu-block-rank0__probe_0d_smem_gridless).
    "rank0_int32_offset_gridless_spec": ("PAL645", lowered("""\
def offset_kernel(x_ref, k_ref, o_ref):
    o_ref[...] = x_ref[...] + k_ref[...]


def offset(x, k):
    return pl.pallas_call(
        offset_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec((16, 128), lambda: (0, 0)), pl.BlockSpec((), lambda: ())],
        out_specs=pl.BlockSpec((16, 128), lambda: (0, 0)),
    )(x, k)
""", "offset", "jax.ShapeDtypeStruct((16, 128), jnp.int32), jax.ShapeDtypeStruct((), jnp.int32)"),
        "pl.BlockSpec(memory_space=pltpu.SMEM)]"),
}

# Findings whose fix would be a guess or would change other code: the finding stays, no fix.
NO_FIX = {
    # Under a grid a 0-d SMEM block is a scalar window: Mosaic refuses it on the chip ("Scalar windows
    # not implemented", tpu-block-rank0__int32_offset_inline_fixed), though it lowers on a CPU.
    "rank0_int32_offset_gridded": ("PAL645", FIXES["rank0_int32_offset_gridless_spec"][1].replace(
        "in_specs=[pl.BlockSpec((16, 128), lambda: (0, 0)), pl.BlockSpec((), lambda: ())]",
        "grid=(2,), in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0)), pl.BlockSpec((), lambda i: ())]").replace(
        "out_specs=pl.BlockSpec((16, 128), lambda: (0, 0)),", "out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),")),
    # The count is the helper's parameter: other callers may pass a legal one.
    "buffered_count_parameter": ("PAL643", FIXES["buffered_4_in_helper"][1].replace(
        "def banded(rows):", "def banded(rows, depth=4):").replace("pl.Buffered(4)", "pl.Buffered(depth)")),
    # One params object for a 1-D and a 2-D launch: its entries are the 2-D launch's too.
    "semantics_shared_by_two_grids": ("PAL642", lowered("""\
PARAMS = pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary"))


def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def rows(x):
    return pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(8,),
                          in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
                          out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)), compiler_params=PARAMS)(x)


def tiles(x):
    return pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(8, 1),
                          in_specs=[pl.BlockSpec((8, 128), lambda i, j: (i, j))],
                          out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)), compiler_params=PARAMS)(x)
""", "rows", "jax.ShapeDtypeStruct((64, 128), jnp.float32)")),
    # A bfloat16 scalar: SMEM scalar arithmetic below 32 bits is not shown to compile on the chip.
    "rank0_bf16_offset": ("PAL645", FIXES["rank0_int32_offset_gridless_spec"][1].replace("jnp.int32", "jnp.bfloat16")),
    # One named spec for the scalar and the rows: SMEM would move the rows too.
    "rank0_named_spec_shared": ("PAL645", lowered("""\
WHOLE = pl.BlockSpec()


def scale_kernel(s_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * s_ref[...]


def scale(s, x):
    return pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          in_specs=[WHOLE, WHOLE])(s, x)
""", "scale", "jax.ShapeDtypeStruct((), jnp.float32), jax.ShapeDtypeStruct((8, 128), jnp.float32)")),
}


def _one_finding(source: str, code: str):
    (found,) = [f for f in analyse(source, "case.py").findings if f.code == code]
    return found


@pytest.mark.parametrize("name", sorted(FIXES))
def test_fix_writes_the_program_that_lowered_and_leaves_no_finding(name: str) -> None:
    from pallas_lsp.analysis.edits import apply_edits

    code, body, expected = FIXES[name]
    source = HEAD + body
    (fix,) = _one_finding(source, code).fixes
    fixed = apply_edits(source, fix.edits)
    assert expected in fixed and expected not in source
    assert not [f for f in analyse(fixed, "case.py").findings if f.code == code]


@pytest.mark.parametrize("name", sorted(NO_FIX))
def test_no_fix_where_it_would_guess_or_edit_other_launches(name: str) -> None:
    code, body = NO_FIX[name]
    assert not _one_finding(HEAD + body, code).fixes


def test_fix_titles_and_safety_say_what_changes() -> None:
    (buffered,) = _one_finding(HEAD + FIXES["buffered_4_in_helper"][1], "PAL643").fixes
    assert buffered.safe and buffered.title == "Use pl.Buffered(2) (double buffering, the default; results unchanged)"
    (padded,) = _one_finding(HEAD + FIXES["prefetch_grid_one_constant"][1], "PAL642").fixes
    assert padded.safe and padded.title == "Pad dimension_semantics with 1 \"arbitrary\" entry to the grid's 2 axes"
    (dropped,) = _one_finding(HEAD + FIXES["three_arbitrary_for_1d"][1], "PAL642").fixes
    assert dropped.safe and dropped.title == "Drop the 2 extra entries of dimension_semantics (the grid has 1 axis)"
    # A kept "parallel" entry may land on a reduction axis of the shorter grid: not safe.
    reused = FIXES["three_arbitrary_for_1d"][1].replace('["arbitrary", "arbitrary", "parallel"]',
                                                        '("parallel", "arbitrary")')
    (kept_parallel,) = _one_finding(HEAD + reused, "PAL642").fixes
    assert not kept_parallel.safe
