# pallas-lsp example: valid
# note: functools.partial binds a plain number; the weights go to the GPU-interpreted launch as an input.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def weighted(scale, x_ref, w_ref, o_ref):
    o_ref[...] = x_ref[...] * w_ref[...] * scale


@jax.jit
def apply(x):
    weights = jnp.linspace(0.0, 1.0, 128, dtype=jnp.float32)
    return pl.pallas_call(functools.partial(weighted, 2.0), out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=plgpu.InterpretGPUParams())(x, weights)


if __name__ == "__main__":
    print(apply(jnp.ones((128,), jnp.float32))[:4])
