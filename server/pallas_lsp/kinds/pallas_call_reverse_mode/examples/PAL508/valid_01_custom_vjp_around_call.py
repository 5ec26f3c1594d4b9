# pallas-lsp example: valid
# note: A jax.custom_vjp gives the kernel call its own backward pass, so jax.grad never linearizes the pallas_call.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def square_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * x_ref[...]


def _square(x):
    return pl.pallas_call(square_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


@functools.partial(jax.custom_vjp)
def square(x):
    return _square(x)


def _square_fwd(x):
    return _square(x), x


def _square_bwd(x, g):
    return (2.0 * x * g,)


square.defvjp(_square_fwd, _square_bwd)


def main():
    x = jnp.arange(256, dtype=jnp.float32)
    print(jax.grad(lambda v: square(v).mean())(x)[:4])


if __name__ == "__main__":
    main()
