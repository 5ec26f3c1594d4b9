# sharding case: only out_shardings= names the (2, 4) mesh; the inputs are unsharded
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

MESH = jax.make_mesh((2, 4), ("data", "model"))


def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0)


def _relu(x):
    return pl.pallas_call(relu_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  # FAIL


def layer(x):
    return _relu(x) * 3


run = jax.jit(layer, out_shardings=NamedSharding(MESH, P("data", "model")))


def inputs():
    return (jnp.ones((32, 512), jnp.float32),)


def main():
    return run(*inputs())


def lower():
    return run.trace(*inputs()).lower(lowering_platforms=("tpu",))
