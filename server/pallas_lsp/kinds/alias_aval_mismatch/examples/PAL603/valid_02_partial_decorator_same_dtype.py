# pallas-lsp example: valid
# note: The output keeps the aliased operand's float32 dtype.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 8, 256


@functools.partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
                   input_output_aliases={1: 0}, interpret=True)
def scale_into(scale_ref, acc_ref, o_ref):
    o_ref[...] = (acc_ref[...] * scale_ref[...]).astype(o_ref.dtype)


if __name__ == "__main__":
    print(scale_into(jnp.full((ROWS, COLS), 2.0, jnp.float32), jnp.ones((ROWS, COLS), jnp.float32))[0, :2])
