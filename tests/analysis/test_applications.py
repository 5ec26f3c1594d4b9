"""Where a built launch is applied to its operands (analysis/applications.py)."""
from __future__ import annotations

from pallas_lsp.analysis.applications import applied_at
from pallas_lsp.analysis.evaluate import Evaluator
from pallas_lsp.analysis.launches import LaunchFinder
from pallas_lsp.analysis.module import ModuleIndex

SOURCE = '''
import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


@functools.partial(plgpu.kernel, out_type=jax.ShapeDtypeStruct((10, 30), jnp.float32))
def double(x_gmem, o_gmem):
    o_gmem[...] = x_gmem[...] * 2.0


def other(x):
    return x


def test_a():
    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...]

    kernel = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
    return kernel(jnp.ones((8, 128)))


def test_b():
    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] + 1

    kernel = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
    return kernel(jnp.zeros((8, 128))), kernel(jnp.ones((8, 128)))


x = jax.ShapeDtypeStruct((10, 30), jnp.float32)
jax.jit(double).trace(x).lower(lowering_platforms=("cuda",))
jax.jit(other).trace(x)
double.lower(x)
'''


def _launches():
    index = ModuleIndex(SOURCE, "/tmp/applications.py")
    ev = Evaluator(index)
    finder = LaunchFinder(index, ev)
    launches = [launch for item in finder.items() if (launch := finder.launch_of(item)) is not None]
    return ev, {launch.line: launch for launch in launches}


def test_a_decorated_launch_traced_by_name_is_applied_by_the_trace():
    ev, launches = _launches()
    double = launches[min(launches)]
    got = [ev.index.span(cs.node, cs.scope).line for cs in applied_at(ev, double)]
    traced = next(i for i, line in enumerate(SOURCE.splitlines(), 1) if line.startswith("jax.jit(double).trace"))
    assert got == [traced]


def test_a_local_launch_is_applied_only_where_its_name_is_seen():
    ev, launches = _launches()
    lines = SOURCE.splitlines()
    a, b = sorted(launches)[1:]
    assert [ev.index.span(cs.node, cs.scope).line for cs in applied_at(ev, launches[a])] == \
        [lines.index("    return kernel(jnp.ones((8, 128)))") + 1]
    assert [ev.index.span(cs.node, cs.scope).line for cs in applied_at(ev, launches[b])] == \
        [lines.index("    return kernel(jnp.zeros((8, 128))), kernel(jnp.ones((8, 128)))") + 1] * 2
