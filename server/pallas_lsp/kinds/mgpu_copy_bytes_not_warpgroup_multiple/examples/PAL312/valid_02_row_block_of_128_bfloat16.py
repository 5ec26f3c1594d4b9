# pallas-lsp example: valid
# note: (None, 128) bfloat16 rows are 256 bytes per step: the pipeline's copies are whole multiples of 128 bytes.
# oracle: lower-cuda
# jax: 0.10.2
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 4, 128


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


def scale_rows(x):
    return pl.pallas_call(
        scale_kernel,
        grid=(x.shape[0],),
        in_specs=[pl.BlockSpec((None, COLS), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((None, COLS), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    )(x)


def main():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16)
    print(jax.jit(scale_rows).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
