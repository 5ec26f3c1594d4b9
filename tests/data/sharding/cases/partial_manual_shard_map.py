# sharding case: shard_map manual over "data" only of a (2, 4) mesh: "model" is still auto-partitioned
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("data", "model"))


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def double_block(x):
    return pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  # FAIL


double = jax.jit(jax.shard_map(double_block, mesh=mesh, in_specs=P("data"), out_specs=P("data"),
                               axis_names={"data"}, check_vma=False))


def inputs():
    return (jnp.ones((64, 128), jnp.float32),)


def main():
    return double(*inputs())


def lower():
    return double.trace(*inputs()).lower(lowering_platforms=("tpu",))
