# pallas-lsp example: valid
# note: interpret=True does not model HBM: the direct read runs there (and would fail in TPU interpret mode).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(table_hbm, o_ref):
    o_ref[...] = table_hbm[...] + 1.0


def main():
    x = jnp.ones((8, 128), jnp.float32)
    call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          in_specs=[pl.BlockSpec(memory_space=pl.ANY)], interpret=True)
    print(call(x)[0, :4])


if __name__ == "__main__":
    main()
