# pallas-lsp example: invalid
# note: A functools.partial decorator gives the kernel a VMEM scratch buffer its signature leaves out.
# raises: TypeError: accumulate\(\) takes 2 positional arguments but 3 were given
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
def accumulate(x_ref, o_ref):  # error
    o_ref[...] = x_ref[...] + 1.0


if __name__ == "__main__":
    print(accumulate(jnp.zeros((ROWS, COLS), jnp.float32))[0, :2])
