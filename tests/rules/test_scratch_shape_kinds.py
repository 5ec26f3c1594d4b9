"""PAL610 scratch-shape-invalid: a ``scratch_shapes`` leaf that is surely no memory-space
allocation (analysis/launch_signature.py ``invalid_scratch``). Each case was run under jax
0.12.0.1 (CPU); the clean twins run. Shapes differ from the examples and the corpus: a dtype
after an allocation in a tuple, a named list, a leaf not known before the bad one."""
from pallas_lsp.rules import analyse

HEADER = """import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
"""

LAUNCH = """

def k(x_ref, o_ref, a_ref, b_ref):
    o_ref[...] = x_ref[...]


SCRATCH = {scratch}
x = jnp.ones((8, 128))
pl.pallas_call(k, out_shape=x, scratch_shapes=SCRATCH, interpret=True)(x)
"""


def found(text: str) -> list[tuple[int, str]]:
    return [(f.span.line, f.message) for f in analyse(HEADER + text, "/tmp/scratch.py").findings
            if f.code == "PAL610"]


def test_a_dtype_after_an_allocation():
    # JAX: AttributeError: type object 'float32' has no attribute 'get_ref_aval'
    got = found(LAUNCH.format(scratch="(pltpu.VMEM((8, 128), jnp.float32), jnp.float32)"))
    assert len(got) == 1 and "type object 'float32' has no attribute 'get_ref_aval'" in got[0][1]


def test_a_shape_dtype_struct_in_a_named_list():
    # JAX: AttributeError: 'ShapeDtypeStruct' object has no attribute 'get_ref_aval'
    got = found(LAUNCH.format(scratch="[pltpu.SMEM((1,), jnp.int32), jax.ShapeDtypeStruct((8, 128), jnp.float32)]"))
    assert len(got) == 1 and "'ShapeDtypeStruct' object" in got[0][1]


def test_allocations_are_quiet():
    assert found(LAUNCH.format(scratch="[pltpu.SMEM((1,), jnp.int32), pltpu.VMEM((8, 128), jnp.float32)]")) == []


def test_a_leaf_not_known_before_the_bad_one_is_quiet():
    assert found(LAUNCH.format(scratch="[make_buffer(), jnp.float32]")) == []
