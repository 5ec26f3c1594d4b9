"""The launch-signature kinds (PAL601-): what a launch hands its kernel, counted only where the
code spells it out (analysis/launch_signature.py). Each case below was run under jax 0.12.0.1
(CPU); the clean twins run or trace clean. Shapes differ from the examples and the corpus on
purpose: a grid spec holding the scratch, a ``*IN`` spread into ``.trace``, a partial kernel,
``plgpu.kernel`` with scratch types."""
from pallas_lsp.rules import analyse

HEADER = """import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu
"""


def found(text: str, code: str) -> list[tuple[int, str]]:
    return [(f.span.line, f.message) for f in analyse(HEADER + text, "/tmp/signature.py").findings if f.code == code]


def line_of(text: str, needle: str) -> int:
    return (HEADER + text).splitlines().index(needle) + 1


PREFETCH_WITH_SCRATCH = """

def k(ids_ref, x_ref, o_ref{extra}):
    o_ref[...] = x_ref[...]


def f(ids, x):
    gs = pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(2,),
        in_specs=[pl.BlockSpec((8, 128), lambda i, ids: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i, ids: (i, 0)),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)])
    return pl.pallas_call(k, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32), grid_spec=gs)(ids, x)


IN = [jax.ShapeDtypeStruct((2,), jnp.int32), jax.ShapeDtypeStruct((16, 128), jnp.float32)]
jax.jit(f).trace(*IN)
"""


def test_scratch_inside_a_prefetch_grid_spec_counts_after_the_outputs():
    # JAX: k() takes 3 positional arguments but 4 were given
    text = PREFETCH_WITH_SCRATCH.format(extra="")
    got = found(text, "PAL601")
    assert [line for line, _ in got] == [line_of(text, "def k(ids_ref, x_ref, o_ref):")]
    assert "takes 3 refs" in got[0][1] and "passes 4 (1 scalar-prefetch operand, 1 input, 1 output, " \
                                           "1 scratch buffer)" in got[0][1]


def test_scratch_inside_a_prefetch_grid_spec_taken_is_quiet():
    assert found(PREFETCH_WITH_SCRATCH.format(extra=", acc_ref"), "PAL601") == []


PLGPU_SCRATCH = """

def body(x_ref, o_ref{extra}):
    o_ref[...] = x_ref[...]


def f(x):
    return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32),
                        scratch_types=[plgpu.SMEM((128,), jnp.float32)])(x)


jax.jit(f).trace(jax.ShapeDtypeStruct((128,), jnp.float32))
"""


def test_plgpu_kernel_scratch_types_count():
    # JAX: body() takes 2 positional arguments but 3 were given
    got = found(PLGPU_SCRATCH.format(extra=""), "PAL601")
    assert len(got) == 1 and "passes 3 (1 input, 1 output, 1 scratch buffer)" in got[0][1]
    assert found(PLGPU_SCRATCH.format(extra=", smem_ref"), "PAL601") == []


PARTIAL_KERNEL = """

def scale_kernel(x_ref, o_ref{extra}, *, factor):
    o_ref[...] = x_ref[...] * factor


def scale(x):
    kernel = functools.partial(scale_kernel, factor=2.0)
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


scale(jnp.ones((8, 128), jnp.float32))
"""


def test_partial_keywords_are_not_refs():
    assert found(PARTIAL_KERNEL.format(extra=""), "PAL601") == []
    got = found(PARTIAL_KERNEL.format(extra=", w_ref"), "PAL601")  # missing 1 required positional argument: 'w_ref'
    assert len(got) == 1 and "takes 3 refs" in got[0][1]


def test_unknown_counts_stay_quiet():
    text = """

def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def run(xs, out_shape, scratch):
    a = pl.pallas_call(kernel, out_shape=out_shape, interpret=True)(jnp.ones((8, 128)))  # out_shape unknown
    # (an unknown spread)
    b = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32), interpret=True)(*xs)
    c = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32), scratch_shapes=scratch,
                       interpret=True)(jnp.ones((8, 128)))  # scratch unknown
    return a, b, c


def star_kernel(*refs):
    refs[-1][...] = refs[0][...]


def run_star(x, y):
    return pl.pallas_call(star_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                          interpret=True)(jnp.ones((8, 128)), jnp.ones((8, 128)))
"""
    assert found(text, "PAL601") == []


def test_a_pytree_operand_is_one_argument():
    # Measured: the kernel gets a tuple operand as one tuple of Refs, so three parameters are one
    # too many (kernel() missing 1 required positional argument: 'o_ref'); two are right.
    text = """

def kernel(pair{extra}, o_ref):
    o_ref[...] = pair[0][...] + pair[1][...]


def add(pair):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32), interpret=True)(pair)


add((jnp.ones((8, 128)), jnp.ones((8, 128))))
"""
    got = found(text.format(extra=", b_ref"), "PAL601")
    assert len(got) == 1 and "passes 2 (1 input, 1 output)" in got[0][1]
    assert found(text.format(extra=""), "PAL601") == []


def test_a_scratch_list_appended_to_later_is_not_counted():
    # jax's tests/pallas/mosaic_gpu_test.py builds scratch_types and appends one more entry.
    text = """

def body(x_ref, o_ref, a_ref, b_ref):
    o_ref[...] = x_ref[...]


def run(x, extra):
    scratch = [plgpu.SMEM((128,), jnp.float32)]
    if extra:
        scratch.append(plgpu.SMEM((128,), jnp.float32))
    else:
        scratch.append(None)
    return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32), scratch_types=scratch)(x)


jax.jit(run, static_argnums=1).trace(jax.ShapeDtypeStruct((128,), jnp.float32), True)
"""
    assert found(text, "PAL601") == []


def test_an_out_shape_of_shape_and_dtype_is_another_error():
    # out_shape=(x.shape, x.dtype) fails first with "Invalid out_shape type": not an arity error.
    text = """

def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def copy(x):
    return pl.pallas_call(kernel, out_shape=(x.shape, x.dtype), interpret=True)(x)


copy(jnp.ones((8, 128), jnp.float32))
"""
    assert found(text, "PAL601") == []


ALIAS_TUPLE_OPERAND = """

def kernel(pair, o_ref):
    o_ref[...] = pair[0][...] + pair[1][...]


def add(a, b):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                          input_output_aliases={{{alias}: 0}}, interpret=True)((a, b))


add(jnp.ones((8, 128)), jnp.ones((8, 128)))
"""


def test_alias_keys_count_flattened_operands():
    # Measured: a tuple operand of two arrays is inputs 0 and 1 to the aliases; 2 is outside [0, 2).
    got = found(ALIAS_TUPLE_OPERAND.format(alias=2), "PAL602")
    assert len(got) == 1 and "has 2 operands" in got[0][1]
    assert found(ALIAS_TUPLE_OPERAND.format(alias=1), "PAL602") == []


def test_alias_quiet_when_an_operand_is_unknown():
    text = """

def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def run(x):  # (no caller: x may be a pytree of many arrays)
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                          input_output_aliases={1: 0}, interpret=True)(x)
"""
    assert found(text, "PAL602") == []


ALIAS_TUPLE_OPERAND = """

def k(pair, o_ref):
    a_ref, b_ref = pair
    o_ref[...] = a_ref[...] + b_ref[:8, :]


def f(a, b):
    return pl.pallas_call(k, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                          input_output_aliases={{{alias}: 0}})((a, b))


IN = [jax.ShapeDtypeStruct((8, 128), jnp.float32), jax.ShapeDtypeStruct((16, 128), jnp.float32)]
jax.jit(f).trace(*IN)
"""


def test_alias_into_a_flattened_tuple_operand_compares_that_leaf():
    # JAX: ... '1:0' referring to input[0][1] with abstract value float32[16,128] and to output
    # with a different abstract value float32[8,128].
    text = ALIAS_TUPLE_OPERAND.format(alias=1)
    got = found(text, "PAL603")
    aliases = "                          input_output_aliases={1: 0})((a, b))"
    assert [line for line, _ in got] == [line_of(text, aliases)]
    assert "operand 1 (float32[16,128])" in got[0][1] and "output 0 (float32[8,128])" in got[0][1]
    assert "same shape" in got[0][1]


def test_alias_into_the_matching_tuple_leaf_is_quiet():
    assert found(ALIAS_TUPLE_OPERAND.format(alias=0), "PAL603") == []


ALIAS_HELPER = """

def _inplace(kernel, x, out_dtype):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, out_dtype),
                          input_output_aliases={{0: 0}}, interpret=True)(x)


def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0).astype(o_ref.dtype)


y = _inplace(relu_kernel, jnp.zeros((4, 128), jnp.int8), {out})
"""


def test_alias_through_a_helper_reads_the_callers_dtypes():
    # JAX: ... referring to input[0] with abstract value int8[4,128] and to output with a
    # different abstract value float32[4,128].
    got = found(ALIAS_HELPER.format(out="jnp.float32"), "PAL603")
    assert len(got) == 1 and "int8[4,128]" in got[0][1] and "float32[4,128]" in got[0][1]


def test_alias_through_a_helper_with_the_same_dtype_is_quiet():
    assert found(ALIAS_HELPER.format(out="jnp.int8"), "PAL603") == []


def test_alias_with_an_unknown_operand_dtype_is_quiet():
    # (a dtype chosen at run time: never guessed)
    text = ALIAS_HELPER.format(out="jnp.float32").replace("jnp.zeros((4, 128), jnp.int8)",
                                                          "jnp.zeros((4, 128), DTYPES[0])")
    assert found("DTYPES = load()\n" + text, "PAL603") == []


def test_alias_when_two_calls_disagree_on_the_operand_is_quiet():
    text = ALIAS_HELPER.format(out="jnp.float32") + "z = _inplace(relu_kernel, jnp.zeros((4, 128)), jnp.float32)\n"
    assert found(text, "PAL603") == []


PROGRAM_ID_DECORATOR = """

@functools.partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct((16, 256), jnp.float32),
                   grid={grid}, interpret=True)
def tile_ids(o_ref):
    o_ref[...] = jnp.full((16, 256), pl.program_id(-2), jnp.float32)


tile_ids()
"""


def test_program_id_negative_axis_past_a_one_axis_grid():
    # JAX: ValueError: Axis -2 is out of bounds for grid (2,)
    text = PROGRAM_ID_DECORATOR.format(grid="2")
    got = found(text, "PAL604")
    asking = "    o_ref[...] = jnp.full((16, 256), pl.program_id(-2), jnp.float32)"
    assert [line for line, _ in got] == [line_of(text, asking)]
    assert "grid axis -2" in got[0][1] and "1 grid axis" in got[0][1] and "grid (2,)" in got[0][1]


def test_program_id_negative_axis_inside_a_two_axis_grid_is_quiet():
    assert found(PROGRAM_ID_DECORATOR.format(grid="(2, 1)"), "PAL604") == []


def test_program_id_with_a_grid_of_unknown_length_is_quiet():
    assert found("GRID = make_grid()\n" + PROGRAM_ID_DECORATOR.format(grid="GRID"), "PAL604") == []


PROGRAM_ID_PIPELINE = """

def outer(x_hbm, o_hbm):
    def body(x_ref, o_ref):
        o_ref[...] = x_ref[...] + pl.program_id({axis})

    pltpu.emit_pipeline(body, grid=(2, 2), in_specs=[pl.BlockSpec((8, 128), lambda i, j: (i, j))],
                        out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)))(x_hbm, o_hbm)


def run(x):
    return pl.pallas_call(outer, out_shape=jax.ShapeDtypeStruct((16, 256), jnp.float32),
                          in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                          out_specs=pl.BlockSpec(memory_space=pl.ANY))(x)
"""


def test_program_id_in_an_emit_pipeline_body_counts_the_pipeline_grid_not_the_launch():
    # (the pipeline traces its body under its own grid, as jax's tpu_pallas_pipeline_test does
    # under a gridless launch; not checked on CPU: emit_pipeline needs a TPU to trace)
    assert found(PROGRAM_ID_PIPELINE.format(axis=1), "PAL604") == []


PROGRAM_ID_INNER_INDEX_MAP = """
def outer(x_hbm, o_hbm):
    def body(x_ref, o_ref):
        o_ref[...] = x_ref[...]

    def row_block(i, j):
        last = i == pl.num_programs(1) - 1
        return (jnp.where(last, i, i), j)

    spec = pl.BlockSpec((8, 128), row_block)
    pltpu.emit_pipeline(body, grid=(2, 2), in_specs=[spec], out_specs=spec)(x_hbm, o_hbm)


def run(x):
    return pl.pallas_call(outer, out_shape=jax.ShapeDtypeStruct((16, 256), jnp.float32),
                          in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                          out_specs=pl.BlockSpec(memory_space=pl.ANY))(x)
"""


def test_program_id_in_an_inner_pipelines_index_map_is_not_the_launchs():
    # (tpu-inference's megablox gmm_v2 asks `pl.num_programs(1)` in the index map of a spec it
    # hands to emit_pipeline under a gridless launch: correct code, run on TPUs every day)
    assert found(PROGRAM_ID_INNER_INDEX_MAP, "PAL604") == []


PROGRAM_ID_IN_A_BRANCH = """
def accumulate(x_ref, o_ref, *, step=None):
    s = pl.program_id(0) if step is None else step
    o_ref[...] = x_ref[...] + s


def kernel(x_ref, o_ref):
    accumulate(x_ref, o_ref, step=1)


def main():
    x = jnp.zeros((8, 128), jnp.float32)
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
"""


def test_a_program_id_that_may_not_run_is_quiet():
    # Runs clean under jax 0.12.0.1 (the caller passes `step`, so program_id is never called);
    # the analysis does not decide the conditional, so it stays quiet rather than guess
    # (tpu-inference's fused_moe: `pl.program_id(0) if _gm_id is None else _gm_id`).
    assert found(PROGRAM_ID_IN_A_BRANCH, "PAL604") == []
    unguarded = PROGRAM_ID_IN_A_BRANCH.replace("pl.program_id(0) if step is None else step", "pl.program_id(0)")
    assert [line for line, _ in found(unguarded, "PAL604")] == [line_of(unguarded, "    s = pl.program_id(0)")]
