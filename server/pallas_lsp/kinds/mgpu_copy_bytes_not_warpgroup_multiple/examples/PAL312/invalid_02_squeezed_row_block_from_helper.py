# pallas-lsp example: invalid
# note: A helper builds the row BlockSpec: (None, 20) float32 is 80 bytes per step, copied into SMEM by jax 0.10's Mosaic GPU pipeline.
# raises: NotImplementedError: Only copies transferring a number of bytes divisible by the warpgroup size are supported\. Got bytes=80 but warpgroup size is 128
# oracle: lower-cuda
# jax: 0.10.2
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 4, 20


def row_spec(cols):
    return pl.BlockSpec((None, cols), lambda i: (i, 0))


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def scale_rows(x):
    return pl.pallas_call(
        scale_kernel,
        grid=(x.shape[0],),
        in_specs=[row_spec(COLS)],  # error
        out_specs=row_spec(COLS),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    )(x)


def main():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32)
    print(jax.jit(scale_rows).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
