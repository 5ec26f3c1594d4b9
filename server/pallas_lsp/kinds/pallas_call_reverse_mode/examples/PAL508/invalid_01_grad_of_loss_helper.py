# pallas-lsp example: invalid
# note: jax.grad of a loss whose helper launches a pallas_call (interpret=True): reverse mode needs a jax.custom_vjp.
# raises: ValueError: Linearization failed to produce known values for all output primals
# fix: Stop the gradient at the kernel's inputs (jax.lax.stop_gradient: no gradient flows through it)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def square_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * x_ref[...]


def square(x):
    return pl.pallas_call(square_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


def loss(x):
    return square(x).mean()


def main():
    x = jnp.arange(256, dtype=jnp.float32)
    print(jax.grad(loss)(x)[:4])  # error


if __name__ == "__main__":
    main()
