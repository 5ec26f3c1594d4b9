# sharding case: under jax.set_mesh of an Explicit (2, 2) mesh, a plain jit called on jnp-made arrays
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

mesh = jax.make_mesh((2, 2), ("data", "model"))


def square_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * x_ref[...]


@jax.jit
def square(x):
    return pl.pallas_call(square_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  # FAIL


def main():
    with jax.set_mesh(mesh):
        return square(jnp.ones((16, 128), jnp.float32))


def lower():
    with jax.set_mesh(mesh):
        return square.trace(jnp.ones((16, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
