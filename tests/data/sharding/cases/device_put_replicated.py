# sharding case: device_put to a replicated NamedSharding(P()) of an 8-device mesh: the jit spans 8 devices
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",))


def neg_kernel(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


@jax.jit
def neg(x):
    return pl.pallas_call(neg_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  # FAIL


def inputs():
    return (jax.device_put(jnp.ones((64, 128), jnp.float32), NamedSharding(mesh, P())),)


def main():
    return neg(*inputs())


def lower():
    return neg.trace(*inputs()).lower(lowering_platforms=("tpu",))
