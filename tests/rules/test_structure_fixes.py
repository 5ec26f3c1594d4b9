"""Quick fixes of launch-structure kinds (issue 40): PAL641's block resize, PAL606's captured
array passed as an input. Each PAL641 fixed program below was lowered for TPU v5e on the CPU
(abstract TPU mesh) under jax 0.10.2 and 0.12.0.1 and lowered clean; the programs that get no
fix are those where the grid would not follow the block.
Shapes differ from the examples and the corpus on purpose."""
from pallas_lsp.analysis.edits import apply_edits
from pallas_lsp.rules import analyse

HEADER = """import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
"""


def findings(text: str, code: str, backends=("tpu",)):
    return [f for f in analyse(HEADER + text, "/tmp/fixes.py", backends=backends).findings if f.code == code]


def fixed(text: str, code: str) -> tuple[str, bool, str]:
    """(the title, whether it is safe, the text after the one fix offered)."""
    (finding,) = findings(text, code)
    (fix,) = [f for f in finding.fixes if not f.title.startswith("Ignore")]
    return fix.title, fix.safe, apply_edits(HEADER + text, fix.edits)[len(HEADER):]


# --- PAL641 tpu-block-1d-tiling ------------------------------------------------------------------

INT16_CONSTANT = """
SIZE, TILE = 6144, 384


def negate_kernel(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


negate = pl.pallas_call(negate_kernel, grid=(SIZE // TILE,),
                        in_specs=[pl.BlockSpec((TILE,), lambda i: (i,))],
                        out_specs=pl.BlockSpec((TILE,), lambda i: (i,)),
                        out_shape=jax.ShapeDtypeStruct((SIZE,), jnp.int16))
jax.jit(negate).trace(jax.ShapeDtypeStruct((SIZE,), jnp.int16))
"""


def test_a_module_constant_block_grows_to_the_smallest_legal_divisor():
    # 384 int16: not a power of 2; 512 (a power of 2 >= 256) does not divide 6144; 1024 does.
    title, safe, text = fixed(INT16_CONSTANT, "PAL641")
    assert title == "Use a block of 1024 elements"
    assert "SIZE, TILE = 6144, 1024" in text and "grid=(SIZE // TILE,)" in text
    assert not safe  # (the kernel sees other blocks)
    assert not findings(text, "PAL641")


INT8_LITERALS = """

def double(x):
    return pl.pallas_call(lambda x_ref, o_ref: o_ref.__setitem__(..., x_ref[...] * 2),
                          grid=(x.shape[0] // 256,),
                          in_specs=[pl.BlockSpec((256,), lambda i: (i,))],
                          out_specs=pl.BlockSpec((256,), lambda i: (i,)),
                          out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


jax.jit(double).trace(jax.ShapeDtypeStruct((2048,), jnp.int8))
"""


def test_literals_in_both_specs_and_the_grid_change_together():
    # int8: the 1-D tile is 512 (128 * (32 // 8)); 256 is a power of 2 below it.
    title, _, text = fixed(INT8_LITERALS, "PAL641")
    assert title == "Use a block of 512 elements"
    assert text.count("pl.BlockSpec((512,)") == 2 and "x.shape[0] // 512" in text
    assert not findings(text, "PAL641")


def test_no_fix_when_the_grid_does_not_follow_the_block():
    # A literal grid (8 steps of 384) would run 8 steps of 1024 over 6144 elements: no fix.
    text = INT16_CONSTANT.replace("grid=(SIZE // TILE,)", "grid=(16,)")
    (finding,) = findings(text, "PAL641")
    assert not [f for f in finding.fixes if not f.title.startswith("Ignore")]


def test_no_fix_when_the_block_is_bound_more_than_once():
    text = INT16_CONSTANT.replace("SIZE, TILE = 6144, 384\n", "SIZE, TILE = 6144, 384\nTILE = 384\n")
    (finding,) = findings(text, "PAL641")
    assert not [f for f in finding.fixes if not f.title.startswith("Ignore")]


def test_whole_array_when_no_power_of_2_or_multiple_of_1024_divides_it():
    text = INT16_CONSTANT.replace("6144", "1920").replace("jnp.int16", "jnp.float32")
    # 384 float32 over 1920: 512, 1024 do not divide 1920; only 1920 itself is legal.
    title, _, out = fixed(text, "PAL641")
    assert title == "Use a block of 1920 elements" and "SIZE, TILE = 1920, 1920" in out


def test_interpret_mode_is_not_flagged():
    assert not findings(INT16_CONSTANT, "PAL641", backends=("cpu",))


# --- PAL606 kernel-captures-constants ------------------------------------------------------------
# Each fixed program ran clean in interpret mode under jax 0.10.2 and 0.12.0.1 (CPU).

NUMPY_WEIGHTS_IN_WRAPPER = """

def weighted(x):
    weights = np.linspace(0.0, 1.0, 64, dtype=np.float32).reshape(8, 8)

    def weigh_kernel(x_ref, y_ref, o_ref):
        o_ref[...] = x_ref[...] * weights + y_ref[...] * (1.0 - weights)

    return pl.pallas_call(weigh_kernel, out_shape=jax.ShapeDtypeStruct((8, 8), jnp.float32),
                          interpret=True)(x, x * 2)


print(weighted(jnp.ones((8, 8), jnp.float32))[7, 7])
"""


def test_a_wrapper_local_numpy_array_becomes_the_last_input():
    title, safe, text = fixed("import numpy as np\n" + NUMPY_WEIGHTS_IN_WRAPPER, "PAL606")
    assert title == "Pass `weights` to the launch as an input (a new kernel parameter `weights_ref`)"
    assert safe  # (the same values, through a ref)
    assert "def weigh_kernel(x_ref, y_ref, weights_ref, o_ref):" in text
    assert "x_ref[...] * weights_ref[...] + y_ref[...] * (1.0 - weights_ref[...])" in text
    assert "(x, x * 2, weights)" in text
    assert not findings(text, "PAL606", backends=())


def no_fix(text: str, backends=()) -> bool:
    (finding,) = findings(text, "PAL606", backends=backends)
    return not [f for f in finding.fixes if not f.title.startswith("Ignore")]


MODULE_TABLE = """
TABLE = jnp.full((4, 128), 3, jnp.int32)


def add_table_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + TABLE


out = pl.pallas_call(add_table_kernel, out_shape=jax.ShapeDtypeStruct((4, 128), jnp.int32),
                     interpret=True)(jnp.zeros((4, 128), jnp.int32))
"""


def test_a_module_table_read_in_the_kernel_is_passed():
    _, _, text = fixed(MODULE_TABLE, "PAL606")
    assert "def add_table_kernel(x_ref, TABLE_ref, o_ref):" in text
    assert "o_ref[...] = x_ref[...] + TABLE_ref[...]" in text and "(jnp.zeros((4, 128), jnp.int32), TABLE)" in text


def test_no_fix_when_in_specs_are_written():
    text = MODULE_TABLE.replace("interpret=True)", "in_specs=[pl.BlockSpec((4, 128), lambda: (0, 0))], interpret=True)")
    assert no_fix(text)


def test_no_fix_when_a_helper_reads_the_array():
    text = MODULE_TABLE.replace("    o_ref[...] = x_ref[...] + TABLE",
                                "    o_ref[...] = plus_table(x_ref[...])\n\n\ndef plus_table(v):\n    return v + TABLE")
    assert no_fix(text)


def test_no_fix_for_a_compiled_launch():
    # (a compiled backend has its own rules for the new block: not shown to run)
    assert no_fix(MODULE_TABLE.replace("interpret=True", "interpret=False"), backends=("tpu",))


def test_no_fix_through_functools_partial():
    # (positional arguments bound by the partial would shift where the new parameter belongs)
    text = MODULE_TABLE.replace("def add_table_kernel(x_ref, o_ref):", "def add_table_kernel(scale, x_ref, o_ref):")
    text = text.replace("pl.pallas_call(add_table_kernel,", "pl.pallas_call(functools.partial(add_table_kernel, 2),")
    assert no_fix(text)


def test_no_fix_when_two_arrays_are_captured():
    text = MODULE_TABLE.replace("TABLE = jnp.full((4, 128), 3, jnp.int32)",
                                "TABLE = jnp.full((4, 128), 3, jnp.int32)\nBIAS = jnp.ones((4, 128), jnp.int32)")
    text = text.replace("x_ref[...] + TABLE", "x_ref[...] + TABLE + BIAS")
    assert no_fix(text)
