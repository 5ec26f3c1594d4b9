# sharding case (clean twin of set_mesh_context): jax.shard_map under the set_mesh context
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4,), ("data",))


def square_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * x_ref[...]


@jax.jit
@functools.partial(jax.shard_map, in_specs=P(), out_specs=P(), check_vma=False)
def square(x):
    return pl.pallas_call(square_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def inputs():
    return (jnp.ones((16, 128), jnp.float32),)


def main():
    with jax.set_mesh(mesh):
        return square(*inputs())


def lower():
    with jax.set_mesh(mesh):
        return square.trace(*inputs()).lower(lowering_platforms=("tpu",))
