"""GPU interpret params that reach a launch through a parameter, a parameter's default or a
caller's argument keep their call site (PAL003's fix edits it), and the message says what
decided the mode; a host test (``jax.default_backend() == "cpu"``) is not called interpret=True.
Each program was run under jax 0.12 (JAX_PLATFORMS=cpu): it fails with
"GPU interpret mode does not support `inline_mgpu`", and runs once the fix is applied."""
import textwrap

import pytest

from pallas_lsp.rules import analyse
from pallas_lsp.analysis.edits import apply_edits

HEAD = '''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref):
    @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
    def fence(ctx, ref):
        del ctx, ref

    o_ref[...] = x_ref[...] - 1.0
    fence(o_ref)

'''

SHAPES = {
    "default": ('''
def run(x, params=plgpu.InterpretGPUParams()):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=params)(x)


def main():
    print(run(jnp.zeros((128,), jnp.float32)))
''', 'def run(x, params=plgpu.InterpretGPUParams(inline_mgpu="ignore")):'),
    "argument": ('''
def run(x, params):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=params)(x)


def main():
    print(run(jnp.zeros((128,), jnp.float32), plgpu.InterpretGPUParams()))
''', '    print(run(jnp.zeros((128,), jnp.float32), plgpu.InterpretGPUParams(inline_mgpu="ignore")))'),
    "caller variable": ('''
def run(x, params):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=params)(x)


def main():
    debug = plgpu.InterpretGPUParams()
    print(run(jnp.zeros((128,), jnp.float32), debug))
''', '    debug = plgpu.InterpretGPUParams(inline_mgpu="ignore")'),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_inline_mgpu_ignore_fix_edits_the_params_that_reach_the_launch(shape):
    tail, fixed_line = SHAPES[shape]
    text = HEAD + tail
    (finding,) = analyse(text, "t.py").findings
    assert finding.code == "PAL003"
    titles = [f.title for f in finding.fixes]
    fix = next((f for f in finding.fixes if 'inline_mgpu="ignore"' in f.title), None)
    assert fix is not None, titles
    fixed = apply_edits(text, fix.edits)
    assert fixed_line in fixed.splitlines(), fixed
    assert fixed.count('inline_mgpu="ignore"') == 1
    assert analyse(fixed, "t.py").findings == []


def test_message_names_the_default_that_decides_the_mode():
    text = HEAD + SHAPES["default"][0]
    (finding,) = analyse(text, "t.py").findings
    assert "called from" not in finding.message.split("; JAX raises")[0]
    assert "launched with the default `params=plgpu.InterpretGPUParams()` (line 16) by `main`" in finding.message
    notes = [r.message for r in finding.related]
    assert "mode decided here: called from `main` without params" in notes


def test_cpu_host_test_is_not_described_as_interpret_true():
    src = HEAD.split("def kernel")[0] + textwrap.dedent('''
    def kernel(x_ref, o_ref):
        sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
        pl.semaphore_signal(sem)
        o_ref[...] = x_ref[...]


    def main():
        x = jnp.zeros((128,), jnp.float32)
        f = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                           interpret=jax.default_backend() == "cpu")
        print(f(x))
    ''')
    (finding,) = analyse(src, "t.py").findings
    assert finding.severity.value == "warning"
    texts = [finding.message] + [r.message for r in finding.related]
    assert not any("interpret=True" in t for t in texts), texts
    assert any("on a CPU host only" in t for t in texts), texts


def test_cpu_host_test_inline_mgpu_headline_says_cpu_host():
    # PAL003's headline names the mode in words too: a host test is not `interpret=True`.
    src = HEAD + textwrap.dedent('''
    def main():
        x = jnp.zeros((128,), jnp.float32)
        f = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                           interpret=jax.default_backend() == "cpu")
        print(f(x))
    ''')
    (finding,) = analyse(src, "t.py").findings
    assert finding.code == "PAL003"
    headline = finding.message.split("; JAX raises")[0]
    assert "interpret=True" not in headline, headline
    assert "on a CPU host only" in headline, headline
