# pallas-lsp example: invalid
# note: jax 0.10 compiles a GPU pallas_call without Triton params with Mosaic GPU, which refuses the traced `row_blocks` grid bound with its own message.
# raises: NotImplementedError: dynamic grid bounds not supported in the Mosaic GPU backend
# fix: Make `row_blocks` static: add it to static_argnames of jax.jit
# oracle: lower-cuda
# jax: 0.10.2
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS = 8


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


@functools.partial(jax.jit, static_argnames=())
def double_rows(x, row_blocks):
    return pl.pallas_call(
        double_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(row_blocks,),  # error
        in_specs=[pl.BlockSpec((ROWS, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((ROWS, 128), lambda i: (i, 0)),
    )(x)


def main():
    x = jax.ShapeDtypeStruct((4 * ROWS, 128), jnp.float32)
    print(double_rows.trace(x, 4).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
