# sharding case (clean twin of in_shardings_partitioned): the launch runs inside jax.shard_map
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Auto,))


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def double_block(x):
    return pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


@functools.partial(jax.jit, in_shardings=NamedSharding(mesh, P("data")))
def double(x):
    return jax.shard_map(double_block, mesh=mesh, in_specs=P("data"), out_specs=P("data"), check_vma=False)(x)


def inputs():
    return (jnp.ones((64, 128), jnp.float32),)


def main():
    return double(*inputs())


def lower():
    return double.trace(*inputs()).lower(lowering_platforms=("tpu",))
