# sharding case: a fully replicated NamedSharding(P()) on a 4-device mesh still puts the jit on 4 devices
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def add_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = a_ref[...] + b_ref[...]


def add(a, b):
    return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype))(a, b)  # FAIL


replicated = NamedSharding(jax.make_mesh((4,), ("model",)), P())
add_everywhere = jax.jit(add, in_shardings=(replicated, replicated), out_shardings=replicated)


def inputs():
    return (jnp.ones((16, 256), jnp.bfloat16), jnp.ones((16, 256), jnp.bfloat16))


def main():
    return add_everywhere(*inputs())


def lower():
    return add_everywhere.trace(*inputs()).lower(lowering_platforms=("tpu",))
