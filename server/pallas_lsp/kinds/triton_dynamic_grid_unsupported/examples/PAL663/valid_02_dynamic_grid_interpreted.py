# pallas-lsp example: valid
# note: A traced grid bound under interpret=True: the generic interpreter loops over it (Triton is never asked).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def negate_kernel(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


@jax.jit
def negate_prefix(x, n_blocks):
    return pl.pallas_call(negate_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(n_blocks,),
                          in_specs=[pl.BlockSpec((8,), lambda i: (i,))],
                          out_specs=pl.BlockSpec((8,), lambda i: (i,)), interpret=True)(x)


def main():
    print(negate_prefix(jnp.arange(32, dtype=jnp.float32), 2)[:10])


if __name__ == "__main__":
    main()
