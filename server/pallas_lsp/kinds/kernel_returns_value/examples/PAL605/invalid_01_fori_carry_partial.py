# pallas-lsp example: invalid
# note: The kernel writes its output and also returns the carry of its loop.
# raises: ValueError: The kernel function in the pallas_call .* should return None
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def power_kernel(x_ref, o_ref, *, times):
    def body(i, acc):
        return acc * x_ref[...]

    acc = jax.lax.fori_loop(0, times, body, jnp.ones_like(x_ref[...]))
    o_ref[...] = acc
    return acc  # error


def power(x):
    kernel = functools.partial(power_kernel, times=3)
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


if __name__ == "__main__":
    print(power(jnp.full((8, 128), 2.0, jnp.float32))[0, :2])
