# pallas-lsp example: invalid
# note: The output is 1-D (a row sum) but its BlockSpec has a 2-D block; the launch is in a helper.
# raises: ValueError: Block shape for outputs .* must have the same number of dimensions
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
        out_specs=pl.BlockSpec((16, 1), lambda: (0, 0)),  # error
        interpret=True,
    )(x)


def main():
    print(row_sums(jnp.ones((16, 128), jnp.float32))[:2])


if __name__ == "__main__":
    main()
