# sharding case: Mesh(devices.reshape(2, 2)) (Auto axes) in a replicated out_shardings of a decorator jit
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

GRID = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("rows", "cols"))


def cast_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...].astype(o_ref.dtype)


@functools.partial(jax.jit, out_shardings=NamedSharding(GRID, P()))
def to_bf16(x):
    return pl.pallas_call(cast_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.bfloat16))(x)  # FAIL


def inputs():
    return (jnp.ones((16, 128), jnp.float32),)


def main():
    return to_bf16(*inputs())


def lower():
    return to_bf16.trace(*inputs()).lower(lowering_platforms=("tpu",))
