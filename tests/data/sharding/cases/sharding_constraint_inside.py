# sharding case: with_sharding_constraint on an Auto-axes mesh inside the jit, before the launch
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Auto, AxisType.Auto))


def exp_kernel(x_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...])


@jax.jit
def softish(x):
    x = jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P("data")))
    return pl.pallas_call(exp_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  # FAIL


def inputs():
    return (jnp.ones((16, 128), jnp.float32),)


def main():
    return softish(*inputs())


def lower():
    return softish.trace(*inputs()).lower(lowering_platforms=("tpu",))
