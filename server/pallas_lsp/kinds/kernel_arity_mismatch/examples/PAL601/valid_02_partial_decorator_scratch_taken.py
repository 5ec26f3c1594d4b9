# pallas-lsp example: valid
# note: The scratch Ref comes after the output Ref.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 16, 128


@functools.partial(
    pl.pallas_call,
    out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
    scratch_shapes=[pltpu.VMEM((ROWS, COLS), jnp.float32)],
    interpret=True,
)
def accumulate(x_ref, o_ref, acc_ref):
    acc_ref[...] = x_ref[...] + 1.0
    o_ref[...] = acc_ref[...]


if __name__ == "__main__":
    print(accumulate(jnp.zeros((ROWS, COLS), jnp.float32))[0, :2])
