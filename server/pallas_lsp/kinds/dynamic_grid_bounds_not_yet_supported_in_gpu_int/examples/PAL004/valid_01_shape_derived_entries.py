# pallas-lsp example: valid
# note: Shape-derived entries are Python ints under jit.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

TILE = 4


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 2.0


@jax.jit
def add_two(x):
    n = x.shape[0] // TILE
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(n, pl.cdiv(x.size, 8)), interpret=plgpu.InterpretGPUParams())(x)


def main():
    print(add_two(jnp.zeros((8,), jnp.float32)))


if __name__ == "__main__":
    main()
