# pallas-lsp example: valid
# note: The same named out-spec map with integer division: every index is an int32 scalar.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

HALF = 2


def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def half_row(i, j):
    row = i // HALF
    return row, j


@functools.partial(jax.jit)
def copy(x):
    return pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 256), x.dtype),
        grid_spec=pl.GridSpec(
            grid=(4, 2),
            in_specs=[pl.BlockSpec((8, 128), lambda i, j: (i // 2, j))],
            out_specs=pl.BlockSpec((8, 128), half_row),
        ),
        interpret=True,
    )(x)


def main():
    print(copy(jnp.ones((16, 256), jnp.float32))[0, :2])


if __name__ == "__main__":
    main()
