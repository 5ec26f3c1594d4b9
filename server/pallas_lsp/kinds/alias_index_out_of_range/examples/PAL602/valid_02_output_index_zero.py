# pallas-lsp example: valid
# note: The one output is output 0.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

SHAPE = (16, 128)


@functools.partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct(SHAPE, jnp.float32),
                   input_output_aliases={0: 0}, interpret=True)
def decay(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


if __name__ == "__main__":
    print(decay(jnp.ones(SHAPE, jnp.float32))[0, :2])
