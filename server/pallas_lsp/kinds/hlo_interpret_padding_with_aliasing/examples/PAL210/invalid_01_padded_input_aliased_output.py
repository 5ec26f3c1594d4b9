# pallas-lsp example: invalid
# note: A padded input block (pl.Element with padding) and aliasing from a module constant, interpret=True.
# raises: NotImplementedError: Padding with aliasing not supported
# fix: Drop `input_output_aliases=` while interpreting
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

IN_PLACE = {1: 0}


def kernel(x_ref, acc_ref, o_ref):
    o_ref[...] = acc_ref[...] + x_ref[1:9, :]


def main():
    x = jnp.ones((8, 128), jnp.float32)
    acc = jnp.zeros((8, 128), jnp.float32)
    halo = pl.BlockSpec((pl.Element(10, padding=(1, 1)), 128), lambda i: (0, 0))
    whole = pl.BlockSpec((8, 128), lambda i: (0, 0))
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(acc.shape, acc.dtype), grid=(1,),
                         in_specs=[halo, whole], out_specs=whole,
                         input_output_aliases=IN_PLACE,  # error
                         interpret=True)(x, acc)
    print(out[0, :2])


if __name__ == "__main__":
    main()
