# pallas-lsp example: valid
# note: jax.vmap of the same launch with interpret=True: pallas_call's batching rule runs.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def add_one_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def add_one(x):
    return pl.pallas_call(add_one_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


def main():
    xs = jnp.zeros((3, 128), jnp.float32)
    print(jax.vmap(add_one)(xs)[:, 0])


if __name__ == "__main__":
    main()
