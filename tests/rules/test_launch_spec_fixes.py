"""The mechanical fixes of the launch-spec kinds (``rules/launch_spec_fixes.py``): each fixed
program below was run under jax 0.12.0.1 (``interpret=True`` on CPU) and ran clean; where the
fix would not be right (two operands for one spec, a helper's spec other callers may use, a
float that is not a division) none is offered."""
from __future__ import annotations

import textwrap

from pallas_lsp.analysis.edits import apply_edits
from pallas_lsp.rules import analyse

HEAD = """\
import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

"""

WRAP = """
    def scale_kernel(s_ref, x_ref, o_ref):
        o_ref[...] = x_ref[...] * 2

    row = pl.BlockSpec((8, 128), lambda i, s: (i, 0))
    out = pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
                         grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(2,),
                                                                in_specs=row, out_specs=row),
                         interpret=True)(jnp.zeros((1,), jnp.int32), jnp.ones((16, 128), jnp.float32))
    print(out[0, 0])
"""

WRAP_TWO_OPERANDS = """
    def add_kernel(x_ref, y_ref, o_ref):
        o_ref[...] = x_ref[...] + y_ref[...]

    row = pl.BlockSpec((8, 128), lambda i: (i, 0))
    x = jnp.ones((16, 128), jnp.float32)
    out = pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32), grid=(2,),
                         in_specs=row, out_specs=row, interpret=True)(x, x)
"""

SWAP = """
    @functools.partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct((8, 256), jnp.float32), grid=(2,),
                       in_specs=[pl.BlockSpec(index_map=lambda j: (0, j), block_shape=(8, 128))],
                       out_specs=pl.BlockSpec(lambda j: (0, j), (8, 128)), interpret=True)
    def negate_kernel(x_ref, o_ref):
        o_ref[...] = -x_ref[...]

    print(negate_kernel(jnp.ones((8, 256), jnp.float32))[0, 0])
"""

SWAP_IN_HELPER = """
    def old_spec(index_map, block):
        return pl.BlockSpec(index_map, block)

    def negate_kernel(x_ref, o_ref):
        o_ref[...] = -x_ref[...]

    out = pl.pallas_call(negate_kernel, out_shape=jax.ShapeDtypeStruct((8, 256), jnp.float32), grid=(2,),
                         in_specs=[old_spec(lambda j: (0, j), (8, 128))],
                         out_specs=pl.BlockSpec((8, 128), lambda j: (0, j)), interpret=True)(jnp.ones((8, 256)))
"""

FLOOR = """
    def tile_map(i, j):
        return i, j / 2

    def spread_kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...]

    out = pl.pallas_call(spread_kernel, out_shape=jax.ShapeDtypeStruct((16, 512), jnp.float32), grid=(2, 4),
                         in_specs=[pl.BlockSpec((8, 128), tile_map)],
                         out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)),
                         interpret=True)(jnp.ones((16, 256), jnp.float32))
    print(out[0, 0])
"""

FLOAT_NOT_A_DIVISION = """
    def spread_kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...]

    out = pl.pallas_call(spread_kernel, out_shape=jax.ShapeDtypeStruct((16, 512), jnp.float32), grid=(2, 4),
                         in_specs=[pl.BlockSpec((8, 128), lambda i, j: (i, j * 0.5))],
                         out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)),
                         interpret=True)(jnp.ones((16, 256), jnp.float32))
"""


def program(body: str) -> str:
    return HEAD + textwrap.dedent(body).lstrip("\n")


def fixes_of(source: str, code: str):
    found = [f for f in analyse(source, "case.py").findings if f.code == code]
    assert len(found) == 1, found
    return found[0].fixes


def fixed(source: str, code: str) -> tuple[str, object]:
    (fix,) = fixes_of(source, code)
    return apply_edits(source, fix.edits), fix


def test_a_bare_in_spec_under_scalar_prefetch_is_wrapped_in_a_list() -> None:
    after, fix = fixed(program(WRAP), "PAL624")
    assert "in_specs=[row], out_specs=row" in after and fix.safe
    assert [f.code for f in analyse(after, "case.py").findings if f.code.startswith("PAL62")] == []


def test_no_wrap_where_one_spec_would_still_not_match_two_operands() -> None:
    assert fixes_of(program(WRAP_TWO_OPERANDS), "PAL624") == ()


def test_the_old_order_out_spec_is_swapped_keywords_left_alone() -> None:
    after, fix = fixed(program(SWAP), "PAL627")
    assert "out_specs=pl.BlockSpec((8, 128), lambda j: (0, j))" in after and fix.safe
    assert "pl.BlockSpec(index_map=lambda j: (0, j), block_shape=(8, 128))" in after
    assert [f.code for f in analyse(after, "case.py").findings if f.code.startswith("PAL62")] == []


def test_no_swap_inside_a_helper_other_callers_may_use() -> None:
    assert fixes_of(program(SWAP_IN_HELPER), "PAL627") == ()


def test_true_division_in_a_named_map_becomes_floor_division_as_an_unsafe_fix() -> None:
    after, fix = fixed(program(FLOOR), "PAL626")
    assert "return i, j // 2" in after and not fix.safe
    assert [f.code for f in analyse(after, "case.py").findings if f.code.startswith("PAL62")] == []


def test_no_floor_division_for_a_float_that_is_not_a_division() -> None:
    assert fixes_of(program(FLOAT_NOT_A_DIVISION), "PAL626") == ()
