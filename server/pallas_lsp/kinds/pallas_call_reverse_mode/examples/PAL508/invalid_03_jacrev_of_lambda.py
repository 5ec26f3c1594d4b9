# pallas-lsp example: invalid
# note: jax.jacrev of a lambda that applies a launch built a few lines up.
# raises: ValueError: Linearization failed to produce known values for all output primals
# fix: Stop the gradient at the kernel's inputs (jax.lax.stop_gradient: no gradient flows through it)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def shift_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def main():
    x = jnp.ones((8,), jnp.float32)
    shift = pl.pallas_call(shift_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)
    print(jax.jacrev(lambda v: shift(v) * 2.0)(x))  # error


if __name__ == "__main__":
    main()
