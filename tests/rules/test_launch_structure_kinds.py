"""The launch-structure kinds (PAL605-): what JAX checks about a launch's own arguments while it
traces it. Each case was run under jax 0.12.0.1 (CPU, ``jax.jit(...).trace``); the clean twins
trace clean. Shapes differ from the examples and the corpus on purpose."""
from pallas_lsp.rules import analyse

HEADER = """import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
"""


def found(text: str, code: str) -> list[tuple[int, str]]:
    return [(f.span.line, f.message) for f in analyse(HEADER + text, "/tmp/structure.py").findings if f.code == code]


def line_of(text: str, needle: str) -> int:
    return (HEADER + text).splitlines().index(needle) + 1


RETURNS_CAST_RESULT = """

def scaled_kernel(x_ref, o_ref):
    y = x_ref[...] * 2.0
    o_ref[...] = y
    if True:
        return y.astype(jnp.bfloat16)


def build(shape):
    return pl.pallas_call(scaled_kernel, out_shape=jax.ShapeDtypeStruct(shape, jnp.float32))


jax.jit(build((8, 128))).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32))
"""


def test_kernel_returning_a_cast_local_from_a_launch_built_by_a_helper():
    # JAX: ValueError: The kernel function in the pallas_call scaled_kernel ... should return None
    got = found(RETURNS_CAST_RESULT, "PAL605")
    assert [line for line, _ in got] == [line_of(RETURNS_CAST_RESULT, "        return y.astype(jnp.bfloat16)")]
    assert "`scaled_kernel` returns a value" in got[0][1]


def test_kernel_returning_a_tuple_of_loads():
    text = """

def pair_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]
    return x_ref[...], o_ref[...]


jax.jit(pl.pallas_call(pair_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))).trace(
    jax.ShapeDtypeStruct((8, 128), jnp.float32))
"""
    # JAX: ... should return None. It returns a PyTree: PyTreeDef((*, *))
    assert [line for line, _ in found(text, "PAL605")] == [line_of(text, "    return x_ref[...], o_ref[...]")]


def test_loop_with_a_none_carry_returns_none_and_is_quiet():
    text = """

def body(i, carry):
    return carry


def scaled_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0
    return jax.lax.fori_loop(0, 2, body, None)


jax.jit(pl.pallas_call(scaled_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))).trace(
    jax.ShapeDtypeStruct((8, 128), jnp.float32))
"""
    assert found(text, "PAL605") == []  # (traces clean: the carry is None)


def test_return_of_an_unknown_helper_call_is_quiet():
    text = """
from helpers import store


def copy_kernel(x_ref, o_ref):
    return store(o_ref, x_ref[...])


jax.jit(pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))).trace(
    jax.ShapeDtypeStruct((8, 128), jnp.float32))
"""
    assert found(text, "PAL605") == []  # (the helper may return None: never guess)


def test_a_local_reassigned_in_a_loop_is_quiet():
    text = """

def acc_kernel(x_ref, o_ref):
    acc = None
    for i in range(2):
        acc = x_ref[...]
    o_ref[...] = x_ref[...]
    return acc
"""
    assert found(text, "PAL605") == []


GRID_SPEC_WITH = """

def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def copy(x, **extra):
    spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
    gs = pl.GridSpec(grid=(2,), in_specs=[spec], out_specs=spec)
    launch = functools.partial(pl.pallas_call, copy_kernel, grid_spec=gs)
    return launch(out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32), {extra})(x)


jax.jit(copy).trace(jax.ShapeDtypeStruct((16, 128), jnp.float32))
"""


def test_out_specs_beside_a_grid_spec_bound_by_a_partial():
    # JAX: ValueError: If `grid_spec` is specified, then `out_specs` must be `no_block_spec`. It is BlockSpec(...)
    text = GRID_SPEC_WITH.format(extra="out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0))")
    got = found(text, "PAL607")
    assert len(got) == 1 and "`out_specs=` is given beside `grid_spec=`" in got[0][1]


def test_int_grid_beside_a_grid_spec():
    # JAX: ValueError: If `grid_spec` is specified, then `grid` must be `()`. It is 2
    assert len(found(GRID_SPEC_WITH.format(extra="grid=2"), "PAL607")) == 1


def test_empty_grid_and_scratch_beside_a_grid_spec_are_quiet():
    # (traces clean: JAX refuses only a non-empty grid or scratch list)
    assert found(GRID_SPEC_WITH.format(extra="grid=(), scratch_shapes=()"), "PAL607") == []


def test_a_wrapper_forwarding_its_default_specs_is_quiet():
    text = """

def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def launch(kernel, out_shape, *, grid_spec=None, in_specs=pl.no_block_spec, grid=()):
    return pl.pallas_call(kernel, out_shape=out_shape, grid_spec=grid_spec, in_specs=in_specs, grid=grid)


def copy(x):
    spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
    gs = pl.GridSpec(grid=(2,), in_specs=[spec], out_specs=spec)
    return launch(copy_kernel, jax.ShapeDtypeStruct((16, 128), jnp.float32), grid_spec=gs)(x)
"""
    assert found(text, "PAL607") == []


PLGPU_OUT = """
from jax.experimental.pallas import mosaic_gpu as plgpu


def make(body, shape):
    return plgpu.kernel(body, {keyword}=jax.ShapeDtypeStruct(shape, jnp.float32), grid=(1,))


def add_one(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


f = make(add_one, (128,))
"""


def test_plgpu_kernel_built_by_a_wrapper_with_out_shape():
    # JAX: TypeError: Mesh.__init__() got an unexpected keyword argument 'out_shape'
    text = PLGPU_OUT.format(keyword="out_shape")
    result = analyse(HEADER + text, "/tmp/structure.py")
    got = [f for f in result.findings if f.code == "PAL611"]
    assert [f.span.line for f in got] == [line_of(text, "    return plgpu.kernel(body, out_shape="
                                                   "jax.ShapeDtypeStruct(shape, jnp.float32), grid=(1,))")]


def test_plgpu_kernel_with_out_type_is_quiet():
    assert found(PLGPU_OUT.format(keyword="out_type"), "PAL611") == []
