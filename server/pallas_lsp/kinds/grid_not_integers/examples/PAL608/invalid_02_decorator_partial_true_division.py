# pallas-lsp example: invalid
# note: A functools.partial decorator whose grid divides two constants with /: 4.0 is a float.
# raises: ValueError: Grid must be a tuple of integers or jax\.Array
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

N = 512
TILE = 128
STEPS = N / TILE


@functools.partial(pl.pallas_call, out_shape=jax.ShapeDtypeStruct((N,), jnp.float32),
                   grid=(STEPS,),  # error
                   # clean twin: grid=(N // TILE,),
                   in_specs=[pl.BlockSpec((TILE,), lambda i: (i,))],
                   out_specs=pl.BlockSpec((TILE,), lambda i: (i,)), interpret=True)
def negate(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


if __name__ == "__main__":
    print(negate(jnp.ones((N,), jnp.float32))[:4])
