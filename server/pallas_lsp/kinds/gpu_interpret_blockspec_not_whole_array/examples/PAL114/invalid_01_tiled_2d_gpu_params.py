# pallas-lsp example: invalid
# note: A 2-D tiled pallas_call (index map from a def) interpreted with GPU params.
# raises: AssertionError: ^$
# fix: Interpret with interpret=True (the generic interpreter supports blocking)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def tile_of(i, j):
    return i, j


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def main():
    x = jnp.ones((16, 256), jnp.float32)
    tile = pl.BlockSpec((8, 128), tile_of)  # error
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2, 2),
                         in_specs=[tile],
                         out_specs=tile, interpret=plgpu.InterpretGPUParams())(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
