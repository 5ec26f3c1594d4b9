"""PAL608 grid-not-integers: a grid entry that is surely a Python or NumPy float (true
division, ``np.ceil``), or a bare float grid (analysis/launch_signature.py ``non_integer_grid``).
Each case below was run under jax 0.12.0.1 (CPU); the clean twins trace or run clean. Shapes
differ from the examples and the corpus: a positional grid in a PrefetchScalarGridSpec, a
helper's grid parameter every caller fills with ``/``, a bare ``np.ceil`` grid."""
from pallas_lsp.rules import analyse

HEADER = """import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
"""


def found(text: str) -> list[tuple[int, str]]:
    return [(f.span.line, f.message) for f in analyse(HEADER + text, "/tmp/grid_ints.py").findings
            if f.code == "PAL608"]


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate((HEADER + text).splitlines(), 1) if needle in line)


PREFETCH_POSITIONAL = """

def k(ids_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


def f(ids, x):
    gs = pltpu.PrefetchScalarGridSpec(1, (x.shape[0] {op} 8, 1),
        [pl.BlockSpec((8, 128), lambda i, j, ids: (i, j))],
        pl.BlockSpec((8, 128), lambda i, j, ids: (i, j)))
    return pl.pallas_call(k, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid_spec=gs)(ids, x)


IN = [jax.ShapeDtypeStruct((2,), jnp.int32), jax.ShapeDtypeStruct((16, 128), jnp.float32)]
jax.jit(f).trace(*IN)
"""


def test_true_division_in_a_positional_prefetch_grid():
    # JAX: ValueError: Grid must be a tuple of integers or jax.Array, got (2.0, 1)
    text = PREFETCH_POSITIONAL.format(op="/")
    got = found(text)
    assert [line for line, _ in got] == [line_of(text, "PrefetchScalarGridSpec(1,")]
    assert "`x.shape[0] / 8` is a float" in got[0][1]


def test_floor_division_in_a_positional_prefetch_grid_is_quiet():
    assert found(PREFETCH_POSITIONAL.format(op="//")) == []


HELPER_PARAM = """

def k2(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def launch(x, steps):
    return pl.pallas_call(k2, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(steps,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)), interpret=True)(x)


total = 32
launch(jnp.ones((32, 128)), total {op} 8)
"""


def test_a_grid_parameter_every_caller_fills_with_true_division():
    # JAX: ValueError: Grid must be a tuple of integers or jax.Array, got (4.0,)
    got = found(HELPER_PARAM.format(op="/"))
    assert [line for line, _ in got] == [line_of(HELPER_PARAM, "grid=(steps,)")]
    assert "got (4.0,)" in got[0][1]


def test_a_grid_parameter_filled_with_floor_division_is_quiet():
    assert found(HELPER_PARAM.format(op="//")) == []


def test_a_grid_parameter_traced_by_jit_is_quiet():
    # (a traced scalar is a jax.Array, which GridSpec accepts: not this kind)
    text = HELPER_PARAM.format(op="/").replace("launch(jnp.ones((32, 128)), total / 8)",
                                               "jax.jit(launch)(jnp.ones((32, 128)), total / 8)")
    assert found(text) == []


def test_a_grid_parameter_no_caller_fills_is_quiet():
    assert found(HELPER_PARAM.format(op="/").rsplit("\ntotal = 32", 1)[0]) == []


BARE = """

def k3(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1


total = 32
pl.pallas_call(k3, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32), grid={grid},
    in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)), interpret=True)(jnp.ones((32, 128)))
"""


def test_a_bare_numpy_float_grid():
    # JAX: IndexError: invalid index to scalar variable.
    got = found(BARE.format(grid="np.ceil(total / 8)"))
    assert len(got) == 1 and "the grid is a float" in got[0][1] and "IndexError" in got[0][1]


def test_a_bare_integer_grid_is_quiet():
    assert found(BARE.format(grid="pl.cdiv(total, 8)")) == []
    assert found(BARE.format(grid="int(np.ceil(total / 8))")) == []
