# sharding case: Mesh(jax.devices(), ...): its size is the host's device count, which the code does not say
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("x",))


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def double(x):
    return pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  # FAIL


double_jit = jax.jit(double, in_shardings=NamedSharding(mesh, P("x")))


def inputs():
    return (jnp.ones((64, 128), jnp.float32),)


def main():
    return double_jit(*inputs())


def lower():
    return double_jit.trace(*inputs()).lower(lowering_platforms=("tpu",))
