# sharding case: jax.jit(in_shardings=NamedSharding(8-device mesh, P("data"))) around a pallas_call
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


@functools.partial(jax.jit, in_shardings=NamedSharding(mesh, P("data")))
def double(x):
    return pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  # FAIL


def inputs():
    return (jnp.ones((64, 128), jnp.float32),)


def main():
    return double(*inputs())


def lower():
    return double.trace(*inputs()).lower(lowering_platforms=("tpu",))
