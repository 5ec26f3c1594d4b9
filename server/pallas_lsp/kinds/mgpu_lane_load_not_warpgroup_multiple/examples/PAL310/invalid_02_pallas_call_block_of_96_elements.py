# pallas-lsp example: invalid
# note: jax 0.10 compiles a GPU pl.pallas_call with Mosaic GPU (Lane): the (8, 12) float32 block copies (384 bytes), but loading it whole needs a multiple of 128 elements.
# raises: ValueError: memref<8x12xf32.*> must have a number of elements that is a multiple of 128 \(got 96\)
# oracle: lower-cuda
# jax: 0.10.2
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, TILE = 32, 12, 8


def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)  # error


def relu(x):
    return pl.pallas_call(
        relu_kernel,
        grid=(ROWS // TILE,),
        in_specs=[pl.BlockSpec((TILE, COLS), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((TILE, COLS), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    )(x)


def main():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    print(jax.jit(relu).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
