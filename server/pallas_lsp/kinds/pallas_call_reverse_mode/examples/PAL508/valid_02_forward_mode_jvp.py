# pallas-lsp example: valid
# note: Forward mode only: jax.jvp runs pallas_call's JVP rule and never linearizes it.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def square_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * x_ref[...]


def loss(x):
    y = pl.pallas_call(square_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
    return y.mean()


def main():
    x = jnp.arange(256, dtype=jnp.float32)
    print(jax.jvp(loss, (x,), (jnp.ones_like(x),)))


if __name__ == "__main__":
    main()
