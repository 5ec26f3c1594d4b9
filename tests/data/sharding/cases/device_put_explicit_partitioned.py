# sharding case (another error): device_put to an Explicit-axes mesh makes the operand's *type*
# sharded; pallas_call refuses it while tracing, before any lowering
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",))  # (axis types default to Explicit)


def neg_kernel(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


@jax.jit
def neg(x):
    return pl.pallas_call(neg_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def inputs():
    return (jax.device_put(jnp.ones((64, 128), jnp.float32), NamedSharding(mesh, P("x"))),)


def main():
    return neg(*inputs())


def lower():
    return neg.trace(*inputs()).lower(lowering_platforms=("tpu",))
