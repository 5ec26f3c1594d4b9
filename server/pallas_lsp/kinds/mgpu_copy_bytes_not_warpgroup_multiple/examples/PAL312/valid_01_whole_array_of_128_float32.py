# pallas-lsp example: valid
# note: 128 float32 elements are 512 bytes, a multiple of 128: jax 0.10's Mosaic GPU pipeline copies and loads them.
# oracle: lower-cuda
# jax: 0.10.2
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

N = 128


def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def relu(x):
    return pl.pallas_call(relu_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def main():
    x = jax.ShapeDtypeStruct((N,), jnp.float32)
    print(jax.jit(relu).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
