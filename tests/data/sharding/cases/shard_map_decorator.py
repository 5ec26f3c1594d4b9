# sharding case (clean): @partial(shard_map) around the launch, jit with replicated in_shardings on a 2x2 mesh
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.shard_map import shard_map
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2, 2), ("x", "y"))


def add_one_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1


@functools.partial(shard_map, mesh=mesh, in_specs=P(), out_specs=P(), check_rep=False)
def add_one_local(x):
    return pl.pallas_call(add_one_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


add_one = jax.jit(add_one_local, in_shardings=NamedSharding(mesh, P()))


def inputs():
    return (jnp.ones((8, 128), jnp.int32),)


def main():
    return add_one(*inputs())


def lower():
    return add_one.trace(*inputs()).lower(lowering_platforms=("tpu",))
