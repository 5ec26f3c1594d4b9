# sharding case: jax.set_mesh of an Auto-axes mesh of 8, arguments made elsewhere
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.sharding import AxisType

mesh = jax.make_mesh((8,), ("batch",), axis_types=(AxisType.Auto,))


def sigmoid_kernel(x_ref, o_ref):
    o_ref[...] = jax.nn.sigmoid(x_ref[...])


def sigmoid(x):
    return pl.pallas_call(sigmoid_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  # FAIL


sigmoid_jit = jax.jit(sigmoid)


def run(x):
    with jax.set_mesh(mesh):
        return sigmoid_jit(x)


def inputs():
    return (jnp.ones((64, 128), jnp.float32),)


def main():
    return run(*inputs())


def lower():
    with jax.set_mesh(mesh):
        return sigmoid_jit.trace(*inputs()).lower(lowering_platforms=("tpu",))
