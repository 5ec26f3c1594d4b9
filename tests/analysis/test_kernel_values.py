"""Dtypes of a launch's kernel Refs and of kernel-body values (analysis/kernel_values.py): what
the TPU dtype kinds decide on. A dtype the code does not say is None, never a guess."""
from __future__ import annotations

import ast

import pytest

from pallas_lsp.analysis.evaluate import Evaluator
from pallas_lsp.analysis.kernel_values import bits, kernel_values
from pallas_lsp.analysis.launches import LaunchFinder
from pallas_lsp.analysis.module import ModuleIndex

HEAD = """import functools
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
"""


def values_of(body: str):
    index = ModuleIndex(HEAD + body, "/tmp/kernel_values_case.py")
    ev = Evaluator(index)
    finder = LaunchFinder(index, ev)
    launches = [launch for item in finder.items() if (launch := finder.launch_of(item)) is not None]
    assert len(launches) == 1
    return kernel_values(ev, launches[0])


def body_value(kv, target: str) -> ast.expr:
    """The value assigned to ``target`` in the kernel body."""
    for node in ast.walk(kv.kernel.node):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id == target:
            return node.value
    raise AssertionError(target)


SPREAD = """
def kernel(x_ref, s_ref, o_ref, acc_ref, sem):
    a = x_ref[...]
    b = a.astype(jnp.int32) + 1
    c = (b * 2).astype(jnp.int8)
    d = a + jnp.int8(3)
    e = a * 1.5
    f = x_ref[...].astype(jnp.float32) * s_ref[0]
    g = jnp.dot(acc_ref[...], acc_ref[...], preferred_element_type=jnp.float32)
    h = jnp.expand_dims(acc_ref[...], -1)
    i = jnp.where(a > 0, a, jnp.zeros((16, 256), jnp.int8))
    o_ref[...] = c


def launch(x, s):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(4,),
        in_specs=[pl.BlockSpec((16, 256), lambda i: (i, 0)), pl.BlockSpec(memory_space=pltpu.SMEM)],
        out_specs=pl.BlockSpec((16, 256), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.bfloat16), pltpu.SemaphoreType.DMA],
    )(x, s)


def inputs():
    x = (jnp.arange(64 * 256, dtype=jnp.int32).reshape(64, 256) % 7).astype(jnp.int8)
    s = jnp.ones((4,), jnp.float32)
    return (x, s)


def main():
    return launch(*inputs())
"""


def test_refs_take_the_dtypes_of_operands_outputs_and_scratch():
    kv = values_of(SPREAD)
    assert kv is not None
    assert [kv.ref_dtype(p) for p in ("x_ref", "s_ref", "o_ref", "acc_ref", "sem")] == \
        ["int8", "float32", "int8", "bfloat16", None]
    assert [kv.ref_space(p) for p in ("x_ref", "s_ref", "o_ref", "acc_ref", "sem")] == \
        [None, "SMEM", None, "VMEM", "SEMAPHORE"]
    assert kv.in_vector_memory("x_ref") and not kv.in_vector_memory("s_ref")
    assert kv.ref("x_ref").spec is not None and kv.ref("x_ref").role == "in"


@pytest.mark.parametrize("target, dtype", [
    ("a", "int8"),  # a Ref read
    ("b", "int32"),  # a cast, then arithmetic with a Python int
    ("c", "int8"),
    ("d", "int8"),  # a jnp scalar of the same dtype
    ("e", None),  # a Python float with an integer array promotes: not told
    ("f", "float32"),  # a cast times an SMEM scalar of the same dtype
    ("g", "float32"),  # preferred_element_type
    ("h", "bfloat16"),
    ("i", "int8"),
])
def test_dtypes_in_the_kernel_body(target, dtype):
    kv = values_of(SPREAD)
    assert kv.dtype_of(body_value(kv, target)) == dtype


def test_shapes_in_the_kernel_body():
    kv = values_of(SPREAD)
    assert kv.shape_of(body_value(kv, "a")) == (16, 256)
    assert kv.shape_of(body_value(kv, "h")) == (8, 128, 1)
    assert kv.shape_of(body_value(kv, "f")) is None  # (times an SMEM scalar: not followed)


def test_a_name_bound_twice_is_not_guessed():
    kv = values_of("""
def kernel(x_ref, o_ref):
    y = x_ref[...]
    y = y.astype(jnp.float32)
    z = y + 1
    o_ref[...] = z


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x)
""")
    assert kv.dtype_of(body_value(kv, "z")) is None
    assert kv.ref_dtype("x_ref") is None  # (run's callers are not in the module)
    assert kv.ref_dtype("o_ref") == "float32"


def test_operands_that_disagree_or_are_unknown_have_no_dtype():
    kv = values_of("""
def kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
call(jnp.ones((8, 128), jnp.float32), jnp.ones((8, 128), jnp.float16))
call(jnp.ones((8, 128), jnp.bfloat16), jnp.ones((8, 128), jnp.float16))
""")
    assert kv.ref_dtype("x_ref") is None  # (float32 in one call, bfloat16 in the other)
    assert kv.ref_dtype("y_ref") == "float16"
    assert kv.dtype_of(ast.parse("x_ref[...] + y_ref[...]", mode="eval").body) is None


def test_scalar_prefetch_operands_are_smem_refs_first():
    kv = values_of("""
def kernel(idx_ref, x_ref, o_ref, buf):
    o_ref[...] = x_ref[...]


def gather(idx, table):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), table.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(4,),
            in_specs=[pl.BlockSpec((8, 128), lambda i, idx_ref: (idx_ref[i], 0))],
            out_specs=pl.BlockSpec((8, 128), lambda i, idx_ref: (i, 0)),
            scratch_shapes=[pltpu.SMEM((4,), jnp.int32)],
        ),
    )(idx, table)


gather(jnp.array([3, 1, 0, 2], dtype=jnp.int16), jnp.zeros((32, 128), dtype=jnp.bfloat16))
""")
    assert (kv.ref("idx_ref").role, kv.ref_dtype("idx_ref"), kv.ref_space("idx_ref")) == ("prefetch", "int16", "SMEM")
    assert (kv.ref_dtype("x_ref"), kv.ref_dtype("o_ref")) == ("bfloat16", "bfloat16")
    assert (kv.ref_dtype("buf"), kv.ref_space("buf")) == ("int32", "SMEM")


def test_x64_arrays_from_numpy_keep_their_dtype_name():
    kv = values_of("""
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def launch(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float64))(x)


launch(np.arange(1024, dtype=np.float64).reshape(8, 128) / 3.0)
""")
    assert kv.ref_dtype("x_ref") == "float64"
    assert kv.dtype_of(ast.parse("x_ref[...] * 0.5", mode="eval").body) == "float64"


def test_partial_binding_positionally_is_not_mapped():
    kv = values_of("""
def kernel(scale, x_ref, o_ref):
    o_ref[...] = x_ref[...] * scale


pl.pallas_call(functools.partial(kernel, 2.0),
               out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(jnp.ones((8, 128)))
""")
    assert kv is None


def test_bits():
    assert [bits(d) for d in ("int8", "uint8", "bfloat16", "float32", "float8_e4m3fn", "int64", "bool")] == \
        [8, 8, 16, 32, 8, 64, None]


def test_storage_and_helpers_follow_what_the_kernel_passes():
    kv = values_of("""
def twice(v):
    return v * 2


def kernel(w_ref, x_ref, o_ref):
    s = w_ref[0] * jnp.int8(2)
    row = x_ref[0]
    y = twice(x_ref[...])
    z = twice(s)
    o_ref[...] = y


pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.int8),
               in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM), pl.BlockSpec((16, 128), lambda: (0, 0))],
               )(jnp.ones((4,), jnp.int8), jnp.ones((16, 128), jnp.int8))
""")
    assert kv.storage(body_value(kv, "s")) == "scalar"  # (an SMEM element times a jnp scalar)
    assert kv.storage(body_value(kv, "row")) is None  # (one index on a VMEM Ref: not said to be a vector)
    assert kv.storage(body_value(kv, "y")) is None  # (a call's result is not followed)
    assert kv.source_ref(body_value(kv, "s")) == "w_ref"
    helper = next(s for s in kv.scopes() if s.name == "twice")
    product = helper.node.body[0].value
    # ``v`` is filled with an int8 vector by one call and an int8 scalar by the other: one dtype,
    # two storages.
    assert kv.dtype_of(product, helper) == "int8"
    assert kv.storage(product, helper) is None
