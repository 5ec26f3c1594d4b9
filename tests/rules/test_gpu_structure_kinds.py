"""The GPU launch-structure kinds: what Pallas's Triton lowering refuses in a pl.pallas_call's
grid mapping (PAL661-PAL663), and what jax 0.9-0.10 refuse where Mosaic GPU compiles a plain GPU
pallas_call (PAL312, PAL310). Every program here was lowered for CUDA under an abstract H100
with jax 0.12.0.1 (and the release cases under 0.10.2 / 0.11.2); shapes differ from the
examples and the corpus on purpose."""
from pallas_lsp.releases import analysis_release
from pallas_lsp.rules import analyse

HEADER = """import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import triton as plt
"""
LOWER = """
gpu = jax.sharding.AbstractMesh((1,), ("d",), (jax.sharding.AxisType.Explicit,),
                                abstract_device=jax.sharding.AbstractDevice(device_kind="NVIDIA H100", num_cores=132,
                                                                            platform="gpu"))
with jax.sharding.use_abstract_mesh(gpu):
    {jit}.trace(*ARGS).lower(lowering_platforms=("{platform}",))
"""
TRITON = ("PAL661", "PAL662", "PAL663")


def lowering(platform: str, jit: str = "jax.jit(run)") -> str:
    return LOWER.replace("{platform}", platform).replace("{jit}", jit)


def findings(text: str, platform: str | None = "cuda", jit: str = "jax.jit(run)", **kw) -> list[tuple[str, int]]:
    program = HEADER + text + (lowering(platform, jit) if platform else "")
    return sorted((f.code, f.span.line) for f in analyse(program, "/tmp/gpu_structure.py", **kw).findings
                  if f.code in TRITON)


def line_of(text: str, needle: str) -> int:
    return (HEADER + text).splitlines().index(needle) + 1


SCRATCH_ACCUMULATOR = """

def sum_rows_kernel(x_ref, o_ref, acc_ref):
    acc_ref[...] = jnp.zeros_like(acc_ref)
    acc_ref[...] += x_ref[...]
    o_ref[...] = acc_ref[...]


def run(x):
    return pl.pallas_call(sum_rows_kernel, out_shape=jax.ShapeDtypeStruct((32, 256), jnp.bfloat16),
                          grid=(4,), in_specs=[pl.BlockSpec((32, 256), lambda i: (i, 0))],
                          out_specs=pl.BlockSpec((32, 256), lambda i: (0, 0)),
                          scratch_shapes=[pltpu.VMEM((32, 256), jnp.bfloat16)])(x)


ARGS = (jax.ShapeDtypeStruct((128, 256), jnp.bfloat16),)
"""


def test_vmem_accumulator_lowered_for_cuda_is_the_triton_scratch_error():
    # JAX 0.12.0.1: NotImplementedError: scratch memory not implemented in the Triton backend
    assert findings(SCRATCH_ACCUMULATOR) == [
        ("PAL661", line_of(SCRATCH_ACCUMULATOR, "                          scratch_shapes=[pltpu.VMEM((32, 256), "
                                                "jnp.bfloat16)])(x)"))]


def test_the_same_scratch_lowered_for_tpu_or_interpreted_is_quiet():
    assert findings(SCRATCH_ACCUMULATOR, platform="tpu") == []
    interpreted = SCRATCH_ACCUMULATOR.replace("jnp.bfloat16)])(x)", "jnp.bfloat16)], interpret=True)(x)")
    assert findings(interpreted) == []


def test_jax_0_10_lowers_a_plain_gpu_pallas_call_through_mosaic_gpu():
    # Under jax 0.10.2 the same program raises Mosaic GPU's "Unsupported memory space: vmem".
    assert findings(SCRATCH_ACCUMULATOR, release=analysis_release("0.10.2")) == []
    assert [c for c, _ in findings(SCRATCH_ACCUMULATOR, release=analysis_release("0.11.2"))] == ["PAL661"]
    # Triton compiler params choose Triton in 0.10.2 too (it raised the Triton message there).
    chosen = SCRATCH_ACCUMULATOR.replace("jnp.bfloat16)])(x)",
                                         "jnp.bfloat16)], compiler_params=plt.CompilerParams())(x)")
    assert [c for c, _ in findings(chosen, release=analysis_release("0.10.2"))] == ["PAL661"]


def test_mosaic_gpu_params_are_not_triton():
    mosaic = SCRATCH_ACCUMULATOR.replace("jnp.bfloat16)])(x)",
                                         "jnp.bfloat16)], compiler_params=plgpu.CompilerParams())(x)")
    assert findings(mosaic) == []


def test_the_backends_setting_compiles_an_unlowered_launch_with_triton():
    smem = SCRATCH_ACCUMULATOR.replace("pltpu.VMEM", "plgpu.SMEM")
    assert [c for c, _ in findings(smem, platform=None, backends=("triton",))] == ["PAL661"]
    assert findings(smem, platform=None, backends=("tpu",)) == []
    assert findings(smem, platform=None) == []  # (no backend known: quiet)
    # TPU memory spaces say the unlowered launch is a TPU kernel, whatever the setting.
    assert findings(SCRATCH_ACCUMULATOR, platform=None, backends=("triton",)) == []


def test_empty_scratch_is_quiet():
    text = SCRATCH_ACCUMULATOR.replace("[pltpu.VMEM((32, 256), jnp.bfloat16)]", "[]").replace(
        "o_ref, acc_ref):", "o_ref):").replace("acc_ref", "o_ref")
    assert findings(text) == []


PREFETCH_AND_SCRATCH = """

def kernel(ids_ref, x_ref, o_ref, tmp_ref):
    tmp_ref[...] = x_ref[...]
    o_ref[...] = tmp_ref[...]


def run(ids, x):
    spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1, grid=(8,),
        in_specs=[pl.BlockSpec((16, 64), lambda i, ids: (ids[i], 0))],
        out_specs=pl.BlockSpec((16, 64), lambda i, ids: (i, 0)),
        scratch_shapes=[pltpu.VMEM((16, 64), jnp.float32)])
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((128, 64), jnp.float32), grid_spec=spec)(ids, x)


ARGS = (jax.ShapeDtypeStruct((8,), jnp.int32), jax.ShapeDtypeStruct((128, 64), jnp.float32))
"""


def test_scalar_prefetch_is_checked_before_scratch():
    # JAX 0.12.0.1: NotImplementedError: scalar prefetch not implemented in the Triton backend
    assert findings(PREFETCH_AND_SCRATCH) == [
        ("PAL662", line_of(PREFETCH_AND_SCRATCH, "        num_scalar_prefetch=1, grid=(8,),"))]


def test_without_prefetch_operands_the_scratch_inside_the_grid_spec_raises():
    text = PREFETCH_AND_SCRATCH.replace("num_scalar_prefetch=1", "num_scalar_prefetch=0").replace(
        "kernel(ids_ref, x_ref", "kernel(x_ref").replace(", ids: (", ": (").replace("(ids, x)", "(x)").replace(
        "ARGS = (jax.ShapeDtypeStruct((8,), jnp.int32), ", "ARGS = (").replace("def run(ids, x)", "def run(x)")
    # JAX 0.12.0.1: NotImplementedError: scratch memory not implemented in the Triton backend
    assert findings(text) == [("PAL661", line_of(text, "        scratch_shapes=[pltpu.VMEM((16, 64), jnp.float32)])"))]


DYNAMIC_AND_PREFETCH = """

def kernel(ids_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


def run(ids, x, steps):
    return pl.pallas_call(
        kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1, grid=(steps,),
            in_specs=[pl.BlockSpec((16, 64), lambda i, ids: (ids[i], 0))],
            out_specs=pl.BlockSpec((16, 64), lambda i, ids: (i, 0))))(ids, x)


ARGS = (jax.ShapeDtypeStruct((8,), jnp.int32), jax.ShapeDtypeStruct((128, 64), jnp.float32), 8)
"""


def test_a_dynamic_grid_is_checked_first():
    # JAX 0.12.0.1: NotImplementedError: dynamic grid bounds not supported in the Triton backend
    got = findings(DYNAMIC_AND_PREFETCH)
    assert got == [("PAL663", line_of(DYNAMIC_AND_PREFETCH, "            num_scalar_prefetch=1, grid=(steps,),"))]


def test_a_static_grid_entry_leaves_the_prefetch_error():
    assert [c for c, _ in findings(DYNAMIC_AND_PREFETCH, jit="jax.jit(run, static_argnums=2)")] == ["PAL662"]


def test_grid_from_shapes_is_static():
    text = """

def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1


@jax.jit
def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(pl.cdiv(x.shape[0], 128),),
                          in_specs=[pl.BlockSpec((128,), lambda i: (i,))],
                          out_specs=pl.BlockSpec((128,), lambda i: (i,)))(x)


ARGS = (jax.ShapeDtypeStruct((1000,), jnp.int32),)
"""
    assert findings(text) == []


def test_static_argnames_fix_for_the_triton_dynamic_grid():
    program = HEADER + DYNAMIC_AND_PREFETCH + lowering("cuda")
    result = analyse(program, "/tmp/gpu_structure.py")
    finding = next(f for f in result.findings if f.code == "PAL663")
    assert [fix.title for fix in finding.fixes] == ["Make `steps` static: add it to static_argnames of jax.jit"]
    fixed = program.replace("jax.jit(run)", 'jax.jit(run, static_argnames=("steps",))')
    assert [f.code for f in analyse(fixed, "/tmp/gpu_structure.py").findings if f.code in TRITON] == ["PAL662"]


def test_the_backends_setting_does_not_make_a_tpu_written_launch_triton():
    # (real TPU kernels: jax's megablox gmm, paged attention; they never run on Triton)
    assert findings(PREFETCH_AND_SCRATCH, platform=None, backends=("triton",)) == []
    tpu_params = SCRATCH_ACCUMULATOR.replace("pltpu.VMEM", "plgpu.SMEM").replace(
        "jnp.bfloat16)])(x)", "jnp.bfloat16)], compiler_params=pltpu.CompilerParams())(x)")
    assert findings(tpu_params, platform=None, backends=("triton",)) == []


def test_static_argnums_the_analysis_cannot_read_leave_the_grid_unknown():
    # jax's own GPU ragged_dot: @api.jit(static_argnums=list(range(3, 14))) makes chunk_m static.
    text = """

def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


@functools.partial(jax.jit, static_argnums=list(range(1, 3)))
def run(x, chunk, extra):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(x.shape[0] // chunk + extra,),
                          in_specs=[pl.BlockSpec((64,), lambda i: (i,))],
                          out_specs=pl.BlockSpec((64,), lambda i: (i,)))(x)


ARGS = (jax.ShapeDtypeStruct((256,), jnp.float32), 64, 0)
"""
    assert findings(text, jit="run") == []
    literal = text.replace("static_argnums=list(range(1, 3))", "static_argnums=(1,)")
    assert [c for c, _ in findings(literal, jit="run")] == ["PAL663"]


# -- PAL606 kernel-captures-constants, PAL613 program-id-outside-kernel (tracing: every mode) --

def traced_findings(text: str, code: str) -> list[int]:
    return [f.span.line for f in analyse(HEADER + text, "/tmp/gpu_structure.py").findings if f.code == code]


CAPTURED_RESHAPED_TABLE = """
import numpy as np

TABLE = jnp.arange(256, dtype=jnp.float32).reshape(2, 128)
ROWS = TABLE.shape[0]
MASK = np.zeros((2, 128), dtype=np.float32)
ZERO_D = np.zeros((), dtype=np.float32)


def kernel(x_ref, o_ref):
    local = jnp.ones((2, 128), jnp.float32)
    o_ref[...] = x_ref[...] * ROWS + local + ZERO_D + TABLE.T.T{extra}


x = jnp.zeros((2, 128), jnp.float32)
pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
"""


def test_a_module_table_read_through_array_methods_is_captured():
    # JAX 0.12.0.1: ValueError: ... captures constants [f32[2,128]]. You should pass them as inputs.
    text = CAPTURED_RESHAPED_TABLE.replace("{extra}", "")
    assert traced_findings(text, "PAL606") == [
        line_of(text, "    o_ref[...] = x_ref[...] * ROWS + local + ZERO_D + TABLE.T.T")]


def test_static_facts_locals_and_0d_numpy_are_not_captured():
    text = CAPTURED_RESHAPED_TABLE.replace(" + TABLE.T.T{extra}", "")
    assert traced_findings(text, "PAL606") == []  # (ran clean under 0.12.0.1)


def test_a_numpy_array_of_rank_1_or_more_is_captured():
    text = CAPTURED_RESHAPED_TABLE.replace(" + TABLE.T.T{extra}", " + MASK")
    assert traced_findings(text, "PAL606") == [
        line_of(text, "    o_ref[...] = x_ref[...] * ROWS + local + ZERO_D + MASK")]


PROGRAM_ID_IN_WRAPPER_HELPERS = """

def block_start():
    return pl.program_id(0) * 64


def describe():
    return {"start": block_start()}


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + block_start()


def run(x, verbose):
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
                         in_specs=[pl.BlockSpec((64,), lambda i: (i + 0 * pl.program_id(0),))],
                         out_specs=pl.BlockSpec((64,), lambda i: (i,)), interpret=True)(x)
    if verbose:
        print(block_start())
    info = describe()
    return out, info


run(jnp.zeros((128,), jnp.int32), False)
"""


def test_program_id_two_helpers_below_the_wrapper():
    # JAX 0.12.0.1: AssertionError (empty), raised in jax/_src/pallas/core.py axis_frame
    assert traced_findings(PROGRAM_ID_IN_WRAPPER_HELPERS, "PAL613") == [
        line_of(PROGRAM_ID_IN_WRAPPER_HELPERS, "    info = describe()")]


def test_program_id_in_the_kernel_an_index_map_or_a_branch_not_taken_is_quiet():
    text = PROGRAM_ID_IN_WRAPPER_HELPERS.replace("    info = describe()\n", "    info = {}\n")
    assert traced_findings(text, "PAL613") == []  # (ran clean under 0.12.0.1)


def test_program_id_at_module_level_next_to_a_module_level_launch():
    text = """

@functools.partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), grid=(1,), interpret=True)
def fill(o_ref):
    o_ref[...] = jnp.zeros((8,), jnp.float32) + pl.num_programs(0)


STEPS = pl.num_programs(0)
fill()
"""
    # JAX 0.12.0.1: AssertionError (empty) at import
    assert traced_findings(text, "PAL613") == [line_of(text, "STEPS = pl.num_programs(0)")]


# -- PAL660 triton-block-power-of-two --

POW2 = """

ROWS, WIDTH = 8, 48


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((64, WIDTH), jnp.float32), grid=(8,),
                          in_specs=[pl.BlockSpec((ROWS, WIDTH), lambda i: (i, 0))],
                          out_specs=pl.BlockSpec((ROWS, WIDTH), lambda i: (i, 0)))(x)


ARGS = (jax.ShapeDtypeStruct((64, WIDTH), jnp.float32),)
"""


def pow2_findings(text: str, **kw) -> list[tuple[str, int]]:
    program = HEADER + text + lowering("cuda")
    return sorted((f.code, f.span.line) for f in analyse(program, "/tmp/gpu_structure.py", **kw).findings
                  if f.code in TRITON + ("PAL660",))


def test_an_8_by_48_block_is_384_elements():
    # JAX 0.12.0.1: ValueError: ... size is a power of 2. Encountered an array of shape (8, 48)
    assert pow2_findings(POW2) == [("PAL660", line_of(POW2, "                          in_specs=[pl.BlockSpec((ROWS, "
                                                             "WIDTH), lambda i: (i, 0))],"))]
    assert pow2_findings(POW2, release=analysis_release("0.10.2")) == []  # (Mosaic GPU there)


def test_power_of_two_slices_of_a_ragged_whole_array_are_quiet():
    text = """

def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[pl.ds(0, 64)] * 2.0


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((64,), jnp.float32))(x)


ARGS = (jax.ShapeDtypeStruct((100,), jnp.float32),)
"""
    assert pow2_findings(text) == []  # (lowered clean under 0.12.0.1)


def test_scratch_is_refused_before_the_kernel_is_lowered():
    text = POW2.replace("def kernel(x_ref, o_ref):", "def kernel(x_ref, o_ref, tmp_ref):").replace(
        "lambda i: (i, 0)))(x)", "lambda i: (i, 0)), scratch_shapes=[plgpu.SMEM((8,), jnp.float32)])(x)")
    # JAX 0.12.0.1: NotImplementedError: scratch memory not implemented in the Triton backend
    assert [c for c, _ in pow2_findings(text)] == ["PAL661"]


# -- PAL311 mgpu-copy-bytes-not-warpgroup-multiple --

COPY_THROUGH_HELPER = """

def fetch(src, dst, bar):
    plgpu.copy_gmem_to_smem(src, dst, bar)
    plgpu.barrier_wait(bar)


def body(x_gmem, o_gmem, staging, bar):
    fetch(x_gmem, staging, bar)


def run(x):
    return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((24,), jnp.float32),
                        scratch_types=[plgpu.SMEM((24,), jnp.float32), plgpu.Barrier()]{params})(x)


ARGS = (jax.ShapeDtypeStruct((24,), jnp.float32),)
"""
LANE = ", compiler_params=plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Lane)"


def copy_findings(text: str, **kw) -> list[int]:
    program = HEADER + text + lowering("cuda")
    return [f.span.line for f in analyse(program, "/tmp/gpu_structure.py", **kw).findings if f.code == "PAL311"]


def test_a_96_byte_copy_through_a_helper_under_lane_semantics():
    # JAX 0.12.0.1: NotImplementedError: ... Got bytes=96 but warpgroup size is 128
    text = COPY_THROUGH_HELPER.replace("{params}", LANE)
    assert copy_findings(text) == [line_of(text, "    plgpu.copy_gmem_to_smem(src, dst, bar)")]


def test_the_default_semantics_follow_the_release():
    text = COPY_THROUGH_HELPER.replace("{params}", "")
    assert copy_findings(text) == []  # (Warpgroup in 0.12.0.1 and 0.11.2: lowered clean)
    # Lane by default in jax 0.10.2, which raised bytes=96 for this program.
    assert copy_findings(text, release=analysis_release("0.10.2")) == [
        line_of(text, "    plgpu.copy_gmem_to_smem(src, dst, bar)")]


def test_a_128_byte_multiple_is_quiet():
    text = COPY_THROUGH_HELPER.replace("{params}", LANE).replace("(24,)", "(32,)")
    assert copy_findings(text) == []  # (lowered clean under 0.12.0.1)


# -- PAL310 mgpu-lane-load-not-warpgroup-multiple --

LANE_LOAD = """

def body(x_ref, o_ref, acc_ref):
    scaled = x_ref[...] * 2.0
    acc_ref[...] = jnp.zeros((5, 40), jnp.float32)
    o_ref[...] = acc_ref[...] + 1.0


def run(x):
    return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((5, 40), jnp.float32),
                        scratch_types=[plgpu.SMEM((5, 40), jnp.float32)]{params})(x)


ARGS = (jax.ShapeDtypeStruct((4, 64), jnp.float32),)
"""


def load_findings(text: str, **kw) -> list[int]:
    program = HEADER + text + lowering("cuda")
    return [f.span.line for f in analyse(program, "/tmp/gpu_structure.py", **kw).findings if f.code == "PAL310"]


def test_a_200_element_smem_scratch_loaded_whole_under_lane():
    # JAX 0.12.0.1: ValueError: memref<5x40xf32, #gpu.address_space<workgroup>> must have a number of
    # elements that is a multiple of 128 (got 200); the 256-element operand before it loads fine.
    text = LANE_LOAD.replace("{params}", LANE)
    assert load_findings(text) == [line_of(text, "    o_ref[...] = acc_ref[...] + 1.0")]
    assert load_findings(LANE_LOAD.replace("{params}", "")) == []  # (Warpgroup by default in 0.12)


# --- jax 0.9-0.10: a plain GPU pallas_call compiled by Mosaic GPU (Lane): PAL312, PAL310 ----------
# Each lowered for CUDA with jax 0.10.2 (NotImplementedError "Only copies transferring a number of
# bytes divisible by the warpgroup size ..." / ValueError "memref<...> must have a number of
# elements that is a multiple of 128"), and quiet under 0.11.2 and the pinned release (Triton).
MOSAIC_LANE = ("PAL310", "PAL312")
ROWS_BLOCKS = """
def scale_kernel(x_ref, y_ref, o_ref, p_ref):
    o_ref[...] = x_ref[...] * 2.0
    p_ref[...] = y_ref[...] + 1.0


def run(x, y):
    return pl.pallas_call(scale_kernel, grid=(4,),
                          in_specs=[pl.BlockSpec((2, 64), lambda i: (i, 0)), pl.BlockSpec((2, 24), lambda i: (i, 0))],
                          out_specs=[pl.BlockSpec((2, 64), lambda i: (i, 0)), pl.BlockSpec((2, 24), lambda i: (i, 0))],
                          out_shape=[jax.ShapeDtypeStruct(x.shape, x.dtype),
                                     jax.ShapeDtypeStruct(y.shape, y.dtype)])(x, y)


ARGS = (jax.ShapeDtypeStruct((8, 64), jnp.float32), jax.ShapeDtypeStruct((8, 24), jnp.float32))
"""


def lane_findings(text: str, release: str | None = "0.10.2", platform: str | None = "cuda") -> list[tuple[str, int]]:
    program = HEADER + text + (lowering(platform) if platform else "")
    kw = {"release": analysis_release(release)} if release else {}
    return sorted((f.code, f.span.line) for f in analyse(program, "/tmp/mosaic_lane.py", **kw).findings
                  if f.code in MOSAIC_LANE)


def test_jax_0_10_copies_each_input_block_in_multiples_of_128_bytes():
    # (2, 24) float32 is 192 bytes: the second input's copy raises (bytes=192), before any load
    line = line_of(ROWS_BLOCKS, "                          in_specs=[pl.BlockSpec((2, 64), lambda i: (i, 0)), "
                                "pl.BlockSpec((2, 24), lambda i: (i, 0))],")
    assert lane_findings(ROWS_BLOCKS) == [("PAL312", line)]
    assert lane_findings(ROWS_BLOCKS, release="0.11.2") == []
    assert lane_findings(ROWS_BLOCKS, release=None) == []
    assert lane_findings(ROWS_BLOCKS, platform="tpu") == []


def test_blocks_that_copy_but_do_not_load_whole_are_the_lane_load_error():
    # (2, 32) float32 copies (256 bytes) but holds 64 elements: the first whole load raises
    text = ROWS_BLOCKS.replace("(2, 24)", "(2, 32)").replace("(8, 24)", "(8, 32)")
    assert lane_findings(text) == [("PAL310", line_of(text, "    p_ref[...] = y_ref[...] + 1.0"))]
    fine = text.replace("(2, 64)", "(2, 128)").replace("(8, 64)", "(8, 128)").replace("(2, 32)", "(2, 128)") \
        .replace("(8, 32)", "(8, 128)")
    assert lane_findings(fine) == []


def test_inputs_left_in_gmem_are_not_copied():
    text = ROWS_BLOCKS.replace("pl.BlockSpec((2, 24), lambda i: (i, 0))", "pl.BlockSpec(memory_space=pl.ANY)", 1) \
        .replace("(2, 24), lambda i: (i, 0))],", "(8, 24), lambda i: (0, 0))],").replace("grid=(4,)", "grid=(1,)")
    # (its copy is gone, but loading the (8, 24) GMEM ref whole is a Lane load of 192 elements;
    # x_ref's (2, 64) block, loaded first, holds 128)
    assert lane_findings(text) == [("PAL310", line_of(text, "    p_ref[...] = y_ref[...] + 1.0"))]


def test_triton_params_or_warpgroup_semantics_choose_no_lane_pipeline():
    triton = ROWS_BLOCKS.replace("jax.ShapeDtypeStruct(y.shape, y.dtype)])(x, y)",
                                 "jax.ShapeDtypeStruct(y.shape, y.dtype)],\n"
                                 "                          compiler_params=plt.CompilerParams())(x, y)")
    assert lane_findings(triton) == []
    warpgroup = triton.replace("plt.CompilerParams()",
                               "plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Warpgroup)")
    assert lane_findings(warpgroup) == []


def test_an_input_of_unknown_size_before_keeps_the_copy_verdict_unknown():
    text = ROWS_BLOCKS.replace("pl.BlockSpec((2, 64), lambda i: (i, 0)), pl.BlockSpec((2, 24)",
                               "pl.BlockSpec(FIRST_BLOCK, lambda i: (i, 0)), pl.BlockSpec((2, 24)")
    text = "import json\nFIRST_BLOCK = tuple(json.load(open('blocks.json')))\n" + text
    assert lane_findings(text) == []


ORDERED = """
def scale_kernel(x_ref, o_ref, acc_ref):
    o_ref[...] = x_ref[...] * 2.0


@functools.partial(jax.jit, static_argnames=())
def run(x, steps):
    return pl.pallas_call(scale_kernel, grid=(steps,),
                          in_specs=[pl.BlockSpec((None, 24), lambda i: (i, 0))],
                          out_specs=pl.BlockSpec((None, 24), lambda i: (i, 0)),
                          out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)])(x)


ARGS = (jax.ShapeDtypeStruct((4, 24), jnp.float32), 4)
"""


def mosaic_order_findings(text: str) -> list[str]:
    program = HEADER + text + lowering("cuda", "run")
    return sorted(f.code for f in analyse(program, "/tmp/mosaic_order.py", release=analysis_release("0.10.2")).findings
                  if f.code in MOSAIC_LANE + TRITON)


def test_jax_0_10_mosaic_gpu_checks_a_pallas_call_in_its_own_order():
    # jax 0.10.2 raised, in turn: "dynamic grid bounds not supported in the Mosaic GPU backend";
    # with a static grid, "Unsupported memory space: vmem" (the VMEM scratch, which no kind
    # reports); without the scratch, the 96-byte row copy (PAL312)
    assert mosaic_order_findings(ORDERED) == ["PAL663"]
    static = ORDERED.replace("grid=(steps,)", "grid=(4,)")
    assert mosaic_order_findings(static) == []
    scratch = ",\n                          scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)])(x)"
    no_scratch = static.replace(scratch, ")(x)").replace("o_ref, acc_ref):", "o_ref):")
    assert mosaic_order_findings(no_scratch) == ["PAL312"]
