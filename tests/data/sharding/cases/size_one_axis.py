# sharding case: partitioned along an axis of size 1, but the mesh has 8 devices (the jit still spans 8)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((1, 8), ("replica", "model"))
on_replica = NamedSharding(mesh, P("replica"))


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def scale(x):
    return pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  # FAIL


scale_jit = jax.jit(scale, in_shardings=on_replica)


def inputs():
    return (jnp.ones((8, 128), jnp.float32),)


def main():
    return scale_jit(*inputs())


def lower():
    return scale_jit.trace(*inputs()).lower(lowering_platforms=("tpu",))
