# pallas-lsp example: invalid
# note: A decorator launch writing bfloat16 in place of a float32 operand: the alias needs one dtype.
# raises: ValueError: input_output_aliases contains the mapping '1:0' referring to input\[1\] with abstract value float32\[8,256\] and to output with a different abstract value bfloat16\[8,256\]
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 8, 256


@functools.partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16),
                   input_output_aliases={1: 0}, interpret=True)  # error
def scale_into(scale_ref, acc_ref, o_ref):
    o_ref[...] = (acc_ref[...] * scale_ref[...]).astype(o_ref.dtype)


if __name__ == "__main__":
    print(scale_into(jnp.full((ROWS, COLS), 2.0, jnp.float32), jnp.ones((ROWS, COLS), jnp.float32))[0, :2])
