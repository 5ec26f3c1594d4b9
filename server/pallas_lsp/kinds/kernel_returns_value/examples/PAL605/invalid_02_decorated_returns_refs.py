# pallas-lsp example: invalid
# note: A decorated kernel returns its output Refs.
# raises: ValueError: The kernel function in the pallas_call .* should return None
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


@functools.partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32), interpret=True)
def negate(x_ref, o_ref):
    o_ref[...] = -x_ref[...]
    return o_ref  # error


if __name__ == "__main__":
    print(negate(jnp.ones((8, 128), jnp.float32))[0, :2])
