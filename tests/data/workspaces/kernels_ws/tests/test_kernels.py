import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pkg import build, config
from pkg.cycle_a import helper_a
from pkg.mgpu_kernels import copy_body


def test_scale():
    x = jnp.ones((128,), jnp.float32)
    run = build(x.shape, x.dtype, interpret=True)
    run(x)


def test_copy():
    x = jnp.ones((128,), jnp.float32)
    pl.pallas_call(copy_body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=config.INTERPRET)(x)


def cycle_kernel(x_ref, o_ref):
    helper_a(o_ref)


def test_cycle():
    x = jnp.ones((128,), jnp.float32)
    pl.pallas_call(cycle_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
