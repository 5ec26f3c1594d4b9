# pallas-lsp example: valid
# note: The same launch with the bound marked static: the grid is a Python int and jax.jvp runs.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def sin_kernel(x_ref, o_ref):
    o_ref[...] = jnp.sin(x_ref[...])


@functools.partial(jax.jit, static_argnames="steps")
def apply_sin(x, steps):
    return pl.pallas_call(sin_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(steps,), interpret=True)(x)


def main():
    x = jnp.linspace(0.0, 1.0, 128, dtype=jnp.float32)
    print(jax.jvp(lambda v: apply_sin(v, steps=1), (x,), (jnp.ones_like(x),))[1][:4])


if __name__ == "__main__":
    main()
