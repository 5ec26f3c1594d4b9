# pallas-lsp example: invalid
# note: jax 0.10 compiles a GPU pl.pallas_call with Mosaic GPU (Lane): no BlockSpecs, so the whole (100,) float32 input, 400 bytes, is copied into SMEM.
# raises: NotImplementedError: Only copies transferring a number of bytes divisible by the warpgroup size are supported\. Got bytes=400 but warpgroup size is 128
# oracle: lower-cuda
# jax: 0.10.2
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

N = 100


def relu_kernel(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def relu(x):
    return pl.pallas_call(relu_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  # error


def main():
    x = jax.ShapeDtypeStruct((N,), jnp.float32)
    print(jax.jit(relu).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
