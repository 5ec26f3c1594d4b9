"""Array shapes the code spells out (analysis/shapes.py): what the BlockSpec tests of the GPU
interpreter's kinds compare blocks with. A shape the code does not say is None, never a guess."""
from __future__ import annotations

import pytest

from pallas_lsp.analysis import shapes
from pallas_lsp.analysis.evaluate import Evaluator
from pallas_lsp.analysis.module import ModuleIndex

HEAD = """import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

R, C = 16, 128
"""


def probe(body: str, expr: str):
    text = HEAD + body + f"\nprobe = {expr}\n"
    index = ModuleIndex(text, "/tmp/shapes.py")
    ev = Evaluator(index)
    (b,) = index.scope.bindings["probe"]
    return shapes.array_shape(ev, b.node, b.scope, ev.order_of(b))


@pytest.mark.parametrize("expr, want", [
    ("jnp.ones((8, 128), jnp.float32)", (8, 128)),
    ("jnp.zeros((R // 2, C))", (8, 128)),
    ("jnp.full((4,), 2.0)", (4,)),
    ("jax.ShapeDtypeStruct((R, C), jnp.bfloat16)", (16, 128)),
    ("jnp.arange(8)", (8,)),
    ("jnp.ones((R, C)).astype(jnp.int32) * 2", (16, 128)),
    ("jnp.ones((R * C,)).reshape(R, C)", (16, 128)),
    ("jnp.zeros_like(jnp.ones((2, 3)))", (2, 3)),
    ("jax.random.normal(jax.random.key(0), (R, 4))", (16, 4)),
    ("jax.ShapeDtypeStruct(jnp.ones((3, 5)).shape, jnp.float32)", (3, 5)),
    ("jnp.linspace(-1.0, 1.0, 2 * C, dtype=jnp.float32).astype(jnp.bfloat16)", (256,)),
    ("jnp.linspace(0.0, 1.0)", (50,)),
    ("jnp.linspace(0.0, 1.0, num=R)", (16,)),
    ("jax.ShapeDtypeStruct((BLOCK[0], C), jnp.float32)", (512, 128)),
    ("jnp.zeros((SHAPE[-1],))", (128,)),
    ("jnp.cos(jnp.arange(R * C, dtype=jnp.float32).reshape(R, C) / 128.0)", (16, 128)),
], ids=["ones", "arithmetic-dims", "full", "struct", "arange", "astype-times", "reshape", "like", "random",
        "shape-of", "linspace", "linspace-default-num", "linspace-num", "subscript-of-named-tuple",
        "negative-subscript", "elementwise-of-arange-with-dtype"])
def test_shapes_the_code_spells_out(expr, want):
    assert probe("BLOCK = (512, C)\nSHAPE = (R, C)\n", expr) == want


@pytest.mark.parametrize("expr", [
    "jnp.ones(shape)",  # a shape the module computes at run time
    "jnp.ones((R, C)) + jnp.ones((C,))",  # broadcasting is not followed
    "load()",
    "jnp.concatenate([a, b])",
    "jnp.linspace(0.0, 1.0, n)",
    "jnp.zeros((shape[0],))",
], ids=["unknown-shape", "broadcast", "unknown-call", "not-followed", "linspace-unknown-num", "subscript-unknown"])
def test_what_the_code_does_not_say_is_none(expr):
    assert probe("shape = tuple(input())\nn = int(input())\n", expr) is None


def test_a_parameter_has_the_shape_every_caller_passes():
    text = HEAD + """
def step(x):
    return x


def main():
    a = jnp.ones((R, C))
    step(a)
    step(jnp.zeros((16, 128)))


def other(y):
    return y


other(jnp.ones((1,)))
other(jnp.ones((2,)))
"""
    index = ModuleIndex(text, "/tmp/shapes.py")
    ev = Evaluator(index)
    step, other = (ev.binding_value(index.scope.bindings[name][-1]).scope for name in ("step", "other"))
    assert shapes.param_shape(ev, step, "x") == (16, 128)
    assert shapes.param_shape(ev, other, "y") is None  # (two callers, two shapes)


def test_a_parameter_filled_by_a_spread_helper_result():
    # ``launch(*inputs())``, the shape of the chip corpus's cases: inputs() returns a tuple
    text = HEAD + """
def launch(x, y):
    return x


def inputs():
    return (jnp.arange(4 * 8 * 128, dtype=jnp.float32).reshape(4, 8, 128), jnp.ones((R, C)))


def main():
    return launch(*inputs())
"""
    index = ModuleIndex(text, "/tmp/shapes.py")
    ev = Evaluator(index)
    launch = ev.binding_value(index.scope.bindings["launch"][-1]).scope
    assert shapes.param_shape(ev, launch, "x") == (4, 8, 128)
    assert shapes.param_shape(ev, launch, "y") == (16, 128)


def block_spec_verdict(spec: str, shape):
    text = HEAD + f"\nspec = {spec}\n"
    index = ModuleIndex(text, "/tmp/shapes.py")
    ev = Evaluator(index)
    (b,) = index.scope.bindings["spec"]
    return shapes.block_covers(ev, ev.value(b.node, b.scope, ev.order_of(b)), shape)


@pytest.mark.parametrize("spec, shape, want", [
    ("pl.BlockSpec((R, C), lambda i: (0, 0))", (16, 128), True),
    ("pl.BlockSpec((R, C))", (16, 128), True),  # the default index map returns zeros
    ("pl.BlockSpec(memory_space=pl.ANY)", None, True),  # no block shape: the whole array
    ("pl.BlockSpec((R // 2, C), lambda i: (0, 0))", (16, 128), False),
    ("pl.BlockSpec((R, C), lambda i: (i, 0))", (16, 128), False),  # the window moves
    ("pl.BlockSpec((R, C), lambda i: (0, 0))", None, None),  # the array's shape is not known
    ("pl.BlockSpec((None, C), lambda i: (0, 0))", (1, 128), True),  # a squeezed dimension has size 1
    ("pl.BlockSpec((R, C), lambda i: (z, 0))", (16, 128), None),  # z: not known to be 0
], ids=["whole", "default-map", "no-block", "half", "moving", "unknown-array", "squeezed", "unknown-index"])
def test_block_covers_is_has_trivial_window(spec, shape, want):
    assert block_spec_verdict(spec, shape) is want
