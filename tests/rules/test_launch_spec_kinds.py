"""The launch-spec kinds (PAL620-PAL627, ``analysis/launch_specs.py``) on code shapes of their own,
each with a clean twin. Every program here was run under jax 0.12.0.1 (``interpret=True`` on
CPU): the ``expect`` ones raise that kind's error at the line marked ``# here``, the twins run."""
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
    # A decorator partial of pl.pallas_call; the index map takes no index under a 1-D grid.
    "partial_decorator_map_without_index": ("PAL620", """
        @functools.partial(
            pl.pallas_call,
            out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
            grid=(4,),
            in_specs=[pl.BlockSpec((8, 128), lambda: (0, 0))],  # here
            out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
            interpret=True,
        )
        def broadcast_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        print(broadcast_kernel(jnp.ones((8, 128), jnp.float32))[0, 0])
    """),
    "partial_decorator_map_with_index": (None, """
        @functools.partial(
            pl.pallas_call,
            out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
            grid=(4,),
            in_specs=[pl.BlockSpec((8, 128), lambda i: (0, 0))],
            out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
            interpret=True,
        )
        def broadcast_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        print(broadcast_kernel(jnp.ones((8, 128), jnp.float32))[0, 0])
    """),
    # No grid: index maps are called with no argument.
    "gridless_map_with_index": ("PAL620", """
        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        x = jnp.ones((8, 128), jnp.float32)
        out = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                             in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],  # here
                             out_specs=pl.BlockSpec((8, 128), lambda: (0, 0)), interpret=True)(x)
        print(out[0, 0])
    """),
    "gridless_map_without_index": (None, """
        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        x = jnp.ones((8, 128), jnp.float32)
        out = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                             in_specs=[pl.BlockSpec((8, 128), lambda: (0, 0))],
                             out_specs=pl.BlockSpec((8, 128), lambda: (0, 0)), interpret=True)(x)
        print(out[0, 0])
    """),
    # A bare scalar is one index: too few for a 2-D block.
    "scalar_index_for_2d_block": ("PAL621", """
        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        x = jnp.ones((16, 128), jnp.float32)
        out = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
                             in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
                             out_specs=pl.BlockSpec((8, 128), lambda i: i), interpret=True)(x)  # here
        print(out[0, 0])
    """),
    "scalar_index_for_1d_block": (None, """
        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        x = jnp.ones((2048,), jnp.float32)
        out = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
                             in_specs=[pl.BlockSpec((1024,), lambda i: (i,))],
                             out_specs=pl.BlockSpec((1024,), lambda i: i), interpret=True)(x)
        print(out[0])
    """),
    # A 3-D block for a 2-D array, in a pl.GridSpec, the spec bound to a name first.
    "grid_spec_3d_block_for_2d_array": ("PAL622", """
        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        x = jnp.ones((16, 128), jnp.float32)
        tile = pl.BlockSpec((1, 8, 128), lambda i: (0, i, 0))  # here
        out = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                             grid_spec=pl.GridSpec(grid=(2,), in_specs=[tile],
                                                   out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0))),
                             interpret=True)(x)
        print(out[0, 0])
    """),
    "grid_spec_2d_block_for_2d_array": (None, """
        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        x = jnp.ones((16, 128), jnp.float32)
        tile = pl.BlockSpec((8, 128), lambda i: (i, 0))
        out = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                             grid_spec=pl.GridSpec(grid=(2,), in_specs=[tile],
                                                   out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0))),
                             interpret=True)(x)
        print(out[0, 0])
    """),
    # A built launch bound to a name and applied to three operands, with two specs; the out map
    # is also wrong, but JAX stops at the first check.
    "bound_launch_specs_one_short": ("PAL623", """
        def fma_kernel(a_ref, b_ref, c_ref, o_ref):
            o_ref[...] = a_ref[...] * b_ref[...] + c_ref[...]

        a = jnp.ones((16, 128), jnp.float32)
        spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
        fma = pl.pallas_call(fma_kernel, out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype), grid=(2,),
                             in_specs=[spec, spec],  # here
                             out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)), interpret=True)
        print(fma(a, a, a)[0, 0])
    """),
    "bound_launch_one_spec_per_operand": (None, """
        def fma_kernel(a_ref, b_ref, c_ref, o_ref):
            o_ref[...] = a_ref[...] * b_ref[...] + c_ref[...]

        a = jnp.ones((16, 128), jnp.float32)
        spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
        fma = pl.pallas_call(fma_kernel, out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype), grid=(2,),
                             in_specs=[spec, spec, spec],
                             out_specs=spec, interpret=True)
        print(fma(a, a, a)[0, 0])
    """),
    # A dict as in_specs for one dict operand.
    "dict_in_specs": ("PAL624", """
        def add_kernel(xs, o_ref):
            o_ref[...] = xs["a"][...] + xs["b"][...]

        x = jnp.ones((16, 128), jnp.float32)
        s = pl.BlockSpec((8, 128), lambda i: (i, 0))
        out = pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
                             in_specs={"a": s, "b": s},  # here
                             out_specs=s, interpret=True)({"a": x, "b": x})
        print(out[0, 0])
    """),
    "dict_in_specs_in_a_list": (None, """
        def add_kernel(xs, o_ref):
            o_ref[...] = xs["a"][...] + xs["b"][...]

        x = jnp.ones((16, 128), jnp.float32)
        s = pl.BlockSpec((8, 128), lambda i: (i, 0))
        out = pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
                             in_specs=[{"a": s, "b": s}],
                             out_specs=s, interpret=True)({"a": x, "b": x})
        print(out[0, 0])
    """),
    # A list of specs for a dict of outputs.
    "list_out_specs_for_dict_out_shape": ("PAL625", """
        def split_kernel(x_ref, outs):  # (a dict of outputs is one argument)
            outs["hi"][...] = x_ref[...]
            outs["lo"][...] = x_ref[...]

        x = jnp.ones((16, 128), jnp.float32)
        s = pl.BlockSpec((8, 128), lambda i: (i, 0))
        sds = jax.ShapeDtypeStruct(x.shape, x.dtype)
        out = pl.pallas_call(split_kernel, out_shape={"hi": sds, "lo": sds}, grid=(2,), in_specs=[s],
                             out_specs=[s, s],  # here
                             interpret=True)(x)
        print(out["hi"][0, 0])
    """),
    "dict_out_specs_for_dict_out_shape": (None, """
        def split_kernel(x_ref, outs):  # (a dict of outputs is one argument)
            outs["hi"][...] = x_ref[...]
            outs["lo"][...] = x_ref[...]

        x = jnp.ones((16, 128), jnp.float32)
        s = pl.BlockSpec((8, 128), lambda i: (i, 0))
        sds = jax.ShapeDtypeStruct(x.shape, x.dtype)
        out = pl.pallas_call(split_kernel, out_shape={"hi": sds, "lo": sds}, grid=(2,), in_specs=[s],
                             out_specs={"hi": s, "lo": s},
                             interpret=True)(x)
        print(out["hi"][0, 0])
    """),
    # A named map given first, in out_specs only.
    "named_map_first_in_out_spec": ("PAL627", """
        def rows(i):
            return (i, 0)

        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        x = jnp.ones((16, 128), jnp.float32)
        out = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
                             in_specs=[pl.BlockSpec((8, 128), rows)],
                             out_specs=pl.BlockSpec(rows, (8, 128)), interpret=True)(x)  # here
        print(out[0, 0])
    """),
    "named_map_by_keyword": (None, """
        def rows(i):
            return (i, 0)

        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        x = jnp.ones((16, 128), jnp.float32)
        out = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
                             in_specs=[pl.BlockSpec((8, 128), rows)],
                             out_specs=pl.BlockSpec(index_map=rows, block_shape=(8, 128)), interpret=True)(x)
        print(out[0, 0])
    """),
}

# Unknown facts stay quiet: a wrapper nobody calls (the operand's rank is not said anywhere),
# a grid whose rank is a parameter's.
QUIET = {
    "operand_rank_not_said": """
        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        def run(x):
            return pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
                                  in_specs=[pl.BlockSpec((1024,), lambda i: (i,))],
                                  out_specs=pl.BlockSpec((1024,), lambda i: (i,)))(x)
    """,
    "grid_rank_not_said": """
        def copy_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        def run(x, grid):
            return pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=grid,
                                  in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
                                  out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)))(x)
    """,
}

CODES = {"PAL620", "PAL621", "PAL622", "PAL623", "PAL624", "PAL625", "PAL627"}


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


def test_the_message_says_the_numbers() -> None:
    source = program(CASES["bound_launch_specs_one_short"][1])
    (finding,) = [f for f in analyse(source, "case.py").findings if f.code == "PAL623"]
    assert "2 entries for 3" in finding.message
