# pallas-lsp example: valid
# note: The same helper with a 1-D block for the 1-D output.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def row_sum_kernel(x_ref, o_ref):
    o_ref[...] = jnp.sum(x_ref[...], axis=1)


def row_sums(x):
    return pl.pallas_call(
        row_sum_kernel,
        out_shape=jax.ShapeDtypeStruct((x.shape[0],), x.dtype),
        in_specs=[pl.BlockSpec((16, 128), lambda: (0, 0))],
        out_specs=pl.BlockSpec((16,), lambda: (0,)),
        interpret=True,
    )(x)


def main():
    print(row_sums(jnp.ones((16, 128), jnp.float32))[:2])


if __name__ == "__main__":
    main()
