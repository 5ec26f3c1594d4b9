# pallas-lsp example: valid
# note: The map returns one index per block dim, the squeezed batch dim included.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def batched_copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def batch_rows(b, i):
    return (b, i, 0)


def main():
    x = jnp.ones((2, 16, 128), jnp.float32)
    out = pl.pallas_call(
        batched_copy_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(2, 2),
        in_specs=[pl.BlockSpec((None, 8, 128), batch_rows)],
        out_specs=pl.BlockSpec((None, 8, 128), lambda b, i: (b, i, 0)),
        interpret=True,
    )(x)
    print(out[0, 0, :2])


if __name__ == "__main__":
    main()
