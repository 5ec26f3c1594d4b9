# pallas-lsp example: invalid
# note: A decorator launch with one output aliased as output 1.
# raises: ValueError: input_output_aliases contains the mapping '0:1' with output index 1 outside the range \[0, 1\)
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

SHAPE = (16, 128)


@functools.partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct(SHAPE, jnp.float32),
                   input_output_aliases={0: 1}, interpret=True)  # error
def decay(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


if __name__ == "__main__":
    print(decay(jnp.ones(SHAPE, jnp.float32))[0, :2])
