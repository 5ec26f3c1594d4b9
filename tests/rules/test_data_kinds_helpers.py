"""Issue 38: data kinds reached through helpers the kernel's author writes: a local decorator
factory around pl.run_scoped, a functools.partial of it, and BlockSpecs a helper builds. Each
shape is checked with its twin that JAX runs clean (the twins' values, measured under jax
0.12.0.1: collective_axes=() and plgpu.GMEM run clean)."""
from __future__ import annotations

import pytest

from pallas_lsp.analysis import Engine
from pallas_lsp.rules import default_rule_set

HEAD = """import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu
"""

# An immediate decorator factory (the decorator runs run_scoped when the def is decorated),
# its axes passed down from the kernel through a helper's parameter.
FACTORY = HEAD + """
def scratch(shape, axes):
    def apply(fn):
        return pl.run_scoped(fn, pltpu.VMEM(shape, jnp.float32), collective_axes=axes)
    return apply


def step(x_ref, o_ref, axes):
    @scratch((8, 128), axes)
    def _(tmp):
        tmp[...] = x_ref[...]
        o_ref[...] = tmp[...]


def kernel(x_ref, o_ref):
    step(x_ref, o_ref, AXES)


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=pltpu.InterpretParams())(x)
"""

PARTIAL = HEAD + """
def kernel(x_ref, o_ref):
    alloc = functools.partial(pl.run_scoped, collective_axes=AXES)

    def body(tmp):
        o_ref[...] = x_ref[...]
    alloc(body, pltpu.VMEM((8, 128), jnp.float32))


def run(x):
    with pltpu.force_tpu_interpret_mode():
        return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
"""

SPEC = HEAD + """
def spec_for(space):
    chosen = space
    return pl.BlockSpec(memory_space=chosen)


def kernel(s_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * s_ref[0]


def run(s, x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          in_specs=(spec_for(SPACE), pl.BlockSpec()),
                          interpret=plgpu.InterpretGPUParams())(s, x)
"""


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(default_rule_set())


def _found(engine: Engine, text: str, code: str) -> list[tuple[int, str]]:
    result = engine.analyse(text, "/tmp/helpers_case.py")
    lines = text.splitlines()
    return [(f.span.line, lines[f.span.line - 1].strip()) for f in result.findings if f.code == code]


@pytest.mark.parametrize("axes,flagged", [('"cores"', True), ("None", True), ("()", False)])
def test_decorator_factory_axes_come_through_the_helper_parameter(engine, axes, flagged) -> None:
    got = _found(engine, f"AXES = {axes}\n" + FACTORY, "PAL203")
    assert got == ([(11, "return pl.run_scoped(fn, pltpu.VMEM(shape, jnp.float32), collective_axes=axes)")]
                   if flagged else []), got


@pytest.mark.parametrize("axes,flagged", [('("core",)', True), ("()", False)])
def test_partial_of_run_scoped_is_run_scoped_with_its_keywords(engine, axes, flagged) -> None:
    got = _found(engine, f"AXES = {axes}\n" + PARTIAL, "PAL203")
    assert got == ([(14, "alloc(body, pltpu.VMEM((8, 128), jnp.float32))")] if flagged else []), got


@pytest.mark.parametrize("space,flagged", [("pltpu.SMEM", True), ("plgpu.GMEM", False)])
def test_blockspec_built_by_a_helper_reads_its_argument(engine, space, flagged) -> None:
    got = _found(engine, SPEC.replace("SPACE", space), "PAL117")
    assert [line for line, _ in got] == ([19] if flagged else []), got


def test_a_helper_that_is_not_a_plain_return_stays_quiet(engine) -> None:
    branching = SPEC.replace("    chosen = space\n",
                             "    if space is None:\n        space = pltpu.VMEM\n    chosen = space\n")
    assert _found(engine, branching.replace("SPACE", "pltpu.SMEM"), "PAL117") == []
