# pallas-lsp example: invalid
# note: The second of two outputs is written as a (shape, dtype) pair: it flattens into ints.
# raises: ValueError: Invalid out_shape type: <class 'int'>
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


@functools.partial(pl.pallas_call,
                   out_shape=[jax.ShapeDtypeStruct((8, 128), jnp.float32), ((8, 128), jnp.int32)],  # error
                   interpret=True)
def split_kernel(x_ref, value_ref, sign_ref):
    value_ref[...] = jnp.abs(x_ref[...])
    sign_ref[...] = (x_ref[...] >= 0).astype(jnp.int32)


if __name__ == "__main__":
    print(split_kernel(jnp.ones((8, 128), jnp.float32))[1][0, :4])
