# pallas-lsp example: invalid
# note: A functools.partial launch whose in-spec map halves the grid index with true division.
# raises: ValueError: Index map function .* for args\[0\] must return integer scalars
# fix: Use floor division `//` for the block index
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def repeat_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


repeat_rows = functools.partial(
    pl.pallas_call,
    repeat_kernel,
    out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
    grid=(4,),
    in_specs=[pl.BlockSpec((8, 128), lambda i: (i / 2, 0))],  # error
    out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    interpret=True,
)


def main():
    print(repeat_rows()(jnp.ones((16, 128), jnp.float32))[::8, 0])


if __name__ == "__main__":
    main()
