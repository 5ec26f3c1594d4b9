"""One launcher, several calls: each call keeps its own kernel and mode. Each program was run
under jax 0.12 (JAX_PLATFORMS=cpu; compiled Mosaic GPU kernels lowered for CUDA): the clean
ones run, the others fail with the error the finding names."""
import pytest

from pallas_lsp.rules import analyse

HEAD = '''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

N = 128


@plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
def fence(ctx, ref):
    del ctx, ref


def body_mgpu(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0
    fence(o_ref)


def body_plain(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0

'''

# The launcher forwards its body as the kernel (a wrapper: each call is a launch) or applies
# a plgpu.kernel factory to it (one launch whose kernel is the parameter).
LAUNCHERS = {
    "wrapper": '''
def make(body, interpret=None):
    return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((N,), jnp.float32), interpret=interpret)
''',
    "factory": '''
def make(body, interpret=None):
    return plgpu.kernel(out_type=jax.ShapeDtypeStruct((N,), jnp.float32), interpret=interpret)(body)
''',
}

MAIN = '''

def main():
    x = jnp.zeros((N,), jnp.float32)
    compiled = make({compiled})
    print(jax.jit(compiled).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:60])
    interpreted = make({interpreted}, interpret=plgpu.InterpretGPUParams())
    print(interpreted(x)[:4])
'''


@pytest.mark.parametrize("launcher", sorted(LAUNCHERS))
def test_compiled_call_and_interpreted_call_keep_their_own_kernels(launcher):
    text = HEAD + LAUNCHERS[launcher] + MAIN.format(compiled="body_mgpu", interpreted="body_plain")
    assert analyse(text, "t.py").findings == []  # runs clean under JAX


@pytest.mark.parametrize("launcher", sorted(LAUNCHERS))
def test_the_interpreted_call_of_the_inline_mgpu_body_is_still_found(launcher):
    text = HEAD + LAUNCHERS[launcher] + MAIN.format(compiled="body_plain", interpreted="body_mgpu")
    found = analyse(text, "t.py").findings
    assert [f.code for f in found] == ["PAL003"]
    assert "kernel `body_mgpu` is launched with `interpret=plgpu.InterpretGPUParams()`" in found[0].message


def test_pal002_names_the_kernel_that_reaches_the_construct():
    text = HEAD + '''
def body_smem(x_ref, o_ref):
    stash = pl.get_global(plgpu.SMEM((N,), jnp.float32))
    stash[...] = x_ref[...]
    o_ref[...] = stash[...] * 2.0
''' + LAUNCHERS["factory"] + '''

def main():
    x = jax.ShapeDtypeStruct((N,), jnp.float32)
    print(jax.jit(make(body_plain)).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:40])
    print(jax.jit(make(body_smem)).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:40])
'''
    (finding,) = analyse(text, "t.py").findings
    assert finding.code == "PAL002"
    assert "kernel `body_smem` is compiled (the default `interpret=None`" in finding.message
    assert "body_plain" not in finding.message
    assert finding.kernel == "body_smem"
    assert all("body_plain" not in r.message for r in finding.related)
