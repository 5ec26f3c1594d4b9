# pallas-lsp example: valid
# note: The same grid spec with the input spec in a list.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def negate_kernel(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


def main():
    x = jnp.ones((16, 128), jnp.float32)
    spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
    out = pl.pallas_call(
        negate_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid_spec=pl.GridSpec(grid=(2,), in_specs=[spec], out_specs=spec),
        interpret=True,
    )(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
