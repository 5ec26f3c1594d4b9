# sharding case: a plain jit called under `with jax.set_mesh(4-device mesh)`, unsharded inputs
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

mesh = jax.make_mesh((4,), ("data",))


def square_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * x_ref[...]


@jax.jit
def square(x):
    return pl.pallas_call(square_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  # FAIL


def inputs():
    return (jnp.ones((16, 128), jnp.float32),)


def main():
    with jax.set_mesh(mesh):
        return square(*inputs())


def lower():
    with jax.set_mesh(mesh):
        return square.trace(*inputs()).lower(lowering_platforms=("tpu",))
