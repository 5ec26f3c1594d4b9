# sharding case (clean): the same sharded jit, but the kernel runs in interpret mode (no Mosaic custom call)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def double(x):
    return pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


double_jit = jax.jit(double, in_shardings=NamedSharding(mesh, P("data")))


def inputs():
    return (jnp.ones((64, 128), jnp.float32),)


def main():
    return double_jit(*inputs())


def lower():
    return double_jit.trace(*inputs()).lower(lowering_platforms=("tpu",))
