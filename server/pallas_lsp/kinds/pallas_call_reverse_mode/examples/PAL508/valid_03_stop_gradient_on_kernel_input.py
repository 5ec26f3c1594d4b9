# pallas-lsp example: valid
# note: The kernel's input is stop_gradient'ed: jax.grad sends no tangent into the pallas_call.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def weights(x):
    return pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


def loss(x):
    return (weights(jax.lax.stop_gradient(x)) * x).sum()


def main():
    x = jnp.ones((128,), jnp.float32)
    print(jax.grad(loss)(x)[:4])


if __name__ == "__main__":
    main()
