"""PAL609 invalid-out-shape: an ``out_shape`` pytree leaf that is surely no array type: a shape
tuple (it flattens into ints), a ``(shape, dtype)`` pair, a dtype (analysis/launch_signature.py
``invalid_out_shape``). Each case was run under jax 0.12.0.1 (CPU); the clean twins trace clean.
Shapes differ from the examples and the corpus: a prefetch grid spec launch given a bare shape
of constants, a traced argument's dtype, a leaf not known before the bad one."""
from pallas_lsp.rules import analyse

HEADER = """import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
"""


def found(text: str) -> list[tuple[int, str]]:
    return [(f.span.line, f.message) for f in analyse(HEADER + text, "/tmp/out_shape.py").findings
            if f.code == "PAL609"]


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate((HEADER + text).splitlines(), 1) if needle in line)


PREFETCH = """

def k(ids_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


ROWS, COLS = 16, 128


def f(ids, x):
    gs = pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(2,),
        in_specs=[pl.BlockSpec((8, 128), lambda i, ids: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i, ids: (i, 0)))
    return pl.pallas_call(k, out_shape={out}, grid_spec=gs)(ids, x)


IN = [jax.ShapeDtypeStruct((2,), jnp.int32), jax.ShapeDtypeStruct((16, 128), jnp.float32)]
jax.jit(f).trace(*IN)
"""


def test_a_bare_shape_of_constants():
    # JAX: ValueError: Invalid out_shape type: <class 'int'>
    text = PREFETCH.format(out="(ROWS, COLS)")
    got = found(text)
    assert [line for line, _ in got] == [line_of(text, "out_shape=(ROWS, COLS)")]
    assert "Invalid out_shape type: <class 'int'>" in got[0][1]


def test_a_shape_dtype_struct_of_the_same_is_quiet():
    assert found(PREFETCH.format(out="jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)")) == []


def test_a_leaf_not_known_before_the_bad_one_is_quiet():
    # (``make_out()`` could raise something else first)
    assert found(PREFETCH.format(out="(make_out(), jnp.float32)")) == []


DTYPE = """

def k2(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def g(x):
    return pl.pallas_call(k2, out_shape={out})(x)


jax.jit(g).trace(jax.ShapeDtypeStruct((16, 128), jnp.float32))
"""


def test_a_traced_arguments_dtype():
    # JAX: ValueError: Invalid out_shape type: <class 'numpy.dtypes.Float32DType'>
    got = found(DTYPE.format(out="x.dtype"))
    assert len(got) == 1 and "Float32DType" in got[0][1]


def test_the_traced_argument_itself_is_quiet():
    assert found(DTYPE.format(out="x")) == []
