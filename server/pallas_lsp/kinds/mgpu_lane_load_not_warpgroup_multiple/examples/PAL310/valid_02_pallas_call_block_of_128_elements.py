# pallas-lsp example: valid
# note: An (8, 16) float32 block holds 128 elements: jax 0.10's Mosaic GPU copies it and loads it whole.
# oracle: lower-cuda
# jax: 0.10.2
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS, TILE = 32, 16, 8


def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


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
