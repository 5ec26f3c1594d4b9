import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def qmm_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32)


def qmm(x, w):
    return pl.pallas_call(
        qmm_kernel,
        out_shape=jax.ShapeDtypeStruct((128, 128), jnp.float32),
        interpret=True,
    )(x, w)


def band_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def band(x):
    return pl.pallas_call(
        band_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 1000), jnp.float32),
        grid=(2,),
        in_specs=[pl.BlockSpec((8, 100), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 1000), lambda i: (i, 0)),
        interpret=pltpu.InterpretParams(),
    )(x)


def ok_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def ok(x):
    return pl.pallas_call(
        ok_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        interpret=True,
    )(x)


def main():
    x8 = jnp.ones((128, 128), jnp.int8)
    return qmm(x8, x8), band(jnp.ones((16, 1000), jnp.float32)), ok(jnp.ones((8, 128), jnp.float32))
