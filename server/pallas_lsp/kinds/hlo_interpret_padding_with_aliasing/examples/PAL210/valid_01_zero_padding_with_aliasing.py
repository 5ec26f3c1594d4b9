# pallas-lsp example: valid
# note: pl.Element with padding (0, 0) is no padding: aliasing is fine under interpret=True.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

IN_PLACE = {1: 0}


def kernel(x_ref, acc_ref, o_ref):
    o_ref[...] = acc_ref[...] + x_ref[...]


def main():
    x = jnp.ones((8, 128), jnp.float32)
    acc = jnp.zeros((8, 128), jnp.float32)
    rows = pl.BlockSpec((pl.Element(8, padding=(0, 0)), 128), lambda i: (0, 0))
    whole = pl.BlockSpec((8, 128), lambda i: (0, 0))
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(acc.shape, acc.dtype), grid=(1,),
                         in_specs=[rows, whole], out_specs=whole,
                         input_output_aliases=IN_PLACE, interpret=True)(x, acc)
    print(out[0, :2])


if __name__ == "__main__":
    main()
