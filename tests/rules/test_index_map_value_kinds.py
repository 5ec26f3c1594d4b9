"""What an index map returns (PAL626 index-map-non-integer, PAL628 index-map-captures-constants;
``analysis/index_values.py``) on code shapes of their own, each with a clean twin. Every program
here was run under jax 0.12.0.1 (``interpret=True`` on CPU): the ``expect`` ones raise that
kind's error at the line marked ``# here``, the twins run."""
from __future__ import annotations

import textwrap

import pytest

from pallas_lsp.rules import analyse

HEAD = """\
import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

"""

CASES = {
    # A decorator partial; the out spec's map multiplies the index by a Python float.
    "decorator_out_map_times_float": ("PAL626", """
        @functools.partial(
            pl.pallas_call,
            out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
            grid=(4,),
            in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
            out_specs=pl.BlockSpec((8, 128), lambda i: (i * 1.0, 0)),  # here
            interpret=True,
        )
        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        print(copy_kernel(jnp.ones((32, 128), jnp.float32))[0, 0])
    """),
    "decorator_out_map_cast_to_int": (None, """
        @functools.partial(
            pl.pallas_call,
            out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
            grid=(4,),
            in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
            out_specs=pl.BlockSpec((8, 128), lambda i: ((i * 1.0).astype(jnp.int32), 0)),
            interpret=True,
        )
        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        print(copy_kernel(jnp.ones((32, 128), jnp.float32))[0, 0])
    """),
    # Under scalar prefetch: the map floors a float product (still a float); its ref is not an index.
    "prefetch_map_floors_float": ("PAL626", """
        def shift_kernel(off_ref, x_ref, o_ref):
            o_ref[...] = x_ref[...]

        def shift(off, x):
            return pl.pallas_call(
                shift_kernel,
                out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
                grid_spec=pltpu.PrefetchScalarGridSpec(
                    num_scalar_prefetch=1,
                    grid=(2,),
                    in_specs=[pl.BlockSpec((8, 128), lambda i, off: (jnp.floor(i * 0.5), 0))],  # here
                    out_specs=pl.BlockSpec((8, 128), lambda i, off: (i, 0)),
                ),
                interpret=True,
            )(off, x)

        print(shift(jnp.zeros((1,), jnp.int32), jnp.ones((16, 128), jnp.float32))[0, 0])
    """),
    "prefetch_map_int_of_division": (None, """
        def shift_kernel(off_ref, x_ref, o_ref):
            o_ref[...] = x_ref[...]

        def shift(off, x):
            return pl.pallas_call(
                shift_kernel,
                out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
                grid_spec=pltpu.PrefetchScalarGridSpec(
                    num_scalar_prefetch=1,
                    grid=(2,),
                    in_specs=[pl.BlockSpec((8, 128), lambda i, off: (jnp.int32(i / 2), 0))],
                    out_specs=pl.BlockSpec((8, 128), lambda i, off: (i, 0)),
                ),
                interpret=True,
            )(off, x)

        print(shift(jnp.zeros((1,), jnp.int32), jnp.ones((16, 128), jnp.float32))[0, 0])
    """),
    # A named map with a local: the column index is a float literal.
    "named_map_float_literal_column": ("PAL626", """
        def column_map(i):
            col = 0.0
            return i, col  # here

        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        x = jnp.ones((16, 128), jnp.float32)
        out = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
                             in_specs=[pl.BlockSpec((8, 128), column_map)],
                             out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)), interpret=True)(x)
        print(out[0, 0])
    """),
    "named_map_int_literal_column": (None, """
        def column_map(i):
            col = 0
            return i, col

        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        x = jnp.ones((16, 128), jnp.float32)
        out = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
                             in_specs=[pl.BlockSpec((8, 128), column_map)],
                             out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)), interpret=True)(x)
        print(out[0, 0])
    """),
    # A 0-d jnp scalar from outside the map is a captured constant too.
    "map_adds_outside_jnp_scalar": ("PAL628", """
        FIRST_BLOCK = jnp.int32(1)

        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        x = jnp.ones((16, 128), jnp.float32)
        out = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype), grid=(1,),
                             in_specs=[pl.BlockSpec((8, 128), lambda i: (i + FIRST_BLOCK, 0))],  # here
                             out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)), interpret=True)(x)
        print(out[0, 0])
    """),
    "map_adds_outside_python_int": (None, """
        FIRST_BLOCK = 1

        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        x = jnp.ones((16, 128), jnp.float32)
        out = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype), grid=(1,),
                             in_specs=[pl.BlockSpec((8, 128), lambda i: (i + FIRST_BLOCK, 0))],
                             out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)), interpret=True)(x)
        print(out[0, 0])
    """),
    # A table bound in the wrapper (not a module constant), read by a named out-spec map.
    "wrapper_table_read_by_out_map": ("PAL628", """
        def reverse_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        def reverse_blocks(x):
            order = jnp.arange(3, -1, -1)

            def out_block(i):
                return order[i] * 1, 0  # here

            return pl.pallas_call(reverse_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(4,),
                                  in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
                                  out_specs=pl.BlockSpec((8, 128), out_block), interpret=True)(x)

        print(reverse_blocks(jnp.ones((32, 128), jnp.float32))[0, 0])
    """),
    "wrapper_arithmetic_instead_of_table": (None, """
        def reverse_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        def reverse_blocks(x):
            def out_block(i):
                return 3 - i, 0

            return pl.pallas_call(reverse_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(4,),
                                  in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
                                  out_specs=pl.BlockSpec((8, 128), out_block), interpret=True)(x)

        print(reverse_blocks(jnp.ones((32, 128), jnp.float32))[0, 0])
    """),
    # A float table: the read is a float, so JAX's integer check fails before the capture check.
    "float_table_fails_integer_check_first": ("PAL626", """
        WEIGHTS = jnp.array([0.0, 1.0])

        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        x = jnp.ones((16, 128), jnp.float32)
        out = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
                             in_specs=[pl.BlockSpec((8, 128), lambda i: (WEIGHTS[i], 0))],  # here
                             out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)), interpret=True)(x)
        print(out[0, 0])
    """),
}

# Unknown facts stay quiet: a scale a caller passes (it may be an int), a table from a
# parameter, the map of a launch whose grid rank is not said under scalar prefetch.
QUIET = {
    "scale_from_parameter": """
        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        def run(x, scale):
            return pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
                                  in_specs=[pl.BlockSpec((8, 128), lambda i: (i * scale, 0))],
                                  out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)))(x)
    """,
    "prefetch_grid_rank_not_said": """
        def copy_kernel(s_ref, x_ref, o_ref):
            o_ref[...] = x_ref[...]

        def run(s, x, grid):
            return pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                                  grid_spec=pltpu.PrefetchScalarGridSpec(
                                      num_scalar_prefetch=1, grid=grid,
                                      in_specs=[pl.BlockSpec((8, 128), lambda i, s: (i / 2, 0))],
                                      out_specs=pl.BlockSpec((8, 128), lambda i, s: (i, 0))))(s, x)
    """,
}

CODES = {"PAL626", "PAL628"}


def program(body: str) -> str:
    return HEAD + textwrap.dedent(body).lstrip("\n")


def findings(source: str) -> list[tuple[str, int]]:
    return [(f.code, f.span.line) for f in analyse(source, "case.py").findings if f.code in CODES]


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_case_is_flagged_on_its_line_and_each_twin_is_quiet(name: str) -> None:
    code, body = CASES[name]
    source = program(body)
    if code is None:
        assert findings(source) == []
        return
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "# here" in text)
    assert findings(source) == [(code, line)]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_unknown_facts_stay_quiet(name: str) -> None:
    assert findings(program(QUIET[name])) == []


def test_the_messages_name_the_index_and_the_array() -> None:
    (float_index,) = [f for f in analyse(program(CASES["decorator_out_map_times_float"][1]), "case.py").findings
                      if f.code == "PAL626"]
    assert "`i * 1.0` as index 0" in float_index.message
    (capture,) = [f for f in analyse(program(CASES["map_adds_outside_jnp_scalar"][1]), "case.py").findings
                  if f.code == "PAL628"]
    assert "`FIRST_BLOCK`" in capture.message
