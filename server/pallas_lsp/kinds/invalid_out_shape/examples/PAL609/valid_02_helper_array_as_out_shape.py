# pallas-lsp example: valid
# note: An array works as out_shape too: it has .shape and .dtype.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

OUT_DTYPE = jnp.bfloat16


def cast_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...].astype(o_ref.dtype)


def cast(x):
    return pl.pallas_call(cast_kernel, out_shape=x.astype(OUT_DTYPE), interpret=True)(x)


if __name__ == "__main__":
    print(cast(jnp.ones((8, 128), jnp.float32))[0, :4])
