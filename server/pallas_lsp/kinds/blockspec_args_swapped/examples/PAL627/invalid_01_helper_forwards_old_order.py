# pallas-lsp example: invalid
# note: A helper builds BlockSpecs in the pre-2024 order (index map first).
# raises: TypeError: 'function' object is not iterable
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def tiled(index_map, block):
    return pl.BlockSpec(index_map, block)


def main():
    x = jnp.ones((16, 128), jnp.float32)
    out = pl.pallas_call(
        double_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(2,),
        in_specs=[tiled(lambda i: (i, 0), (8, 128))],  # error
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        interpret=True,
    )(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
