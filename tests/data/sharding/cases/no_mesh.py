# sharding case (clean): a plain jit, no mesh, no sharding
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


@jax.jit
def double(x):
    return pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def inputs():
    return (jnp.ones((64, 128), jnp.float32),)


def main():
    return double(*inputs())


def lower():
    return double.trace(*inputs()).lower(lowering_platforms=("tpu",))
