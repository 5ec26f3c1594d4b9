# pallas-lsp example: valid
# note: The generic interpreter (interpret=True) supports the moving output block.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(o_ref):
    o_ref[...] = jnp.full(o_ref.shape, 3.0, o_ref.dtype)


def main():
    fill = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((256,), jnp.float32), grid=(2,),
                          out_specs=pl.BlockSpec((128,), lambda i: (i,)), interpret=True)
    print(fill()[:2])


if __name__ == "__main__":
    main()
