# pallas-lsp example: valid
# note: The padded output block without aliasing runs under interpret=True.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = jnp.zeros(o_ref.shape, o_ref.dtype)
    o_ref[1:9, :] = x_ref[...] * 2.0


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(1,),
                         out_specs=pl.BlockSpec((pl.Element(10, (1, 1)), 128), lambda i: (0, 0)),
                         interpret=True)(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
