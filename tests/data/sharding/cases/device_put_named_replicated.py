# sharding case: a name bound to device_put(x, NamedSharding(Explicit mesh of 4, P())) passed to a jit
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def abs_kernel(x_ref, o_ref):
    o_ref[...] = jnp.abs(x_ref[...])


@jax.jit
def absolute(x):
    return pl.pallas_call(abs_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  # FAIL


def main():
    mesh = jax.make_mesh((4,), ("x",))
    x = jax.device_put(jnp.ones((8, 128), jnp.int32), NamedSharding(mesh, P()))
    return absolute.trace(x).lower(lowering_platforms=("tpu",))


def lower():
    return main()
