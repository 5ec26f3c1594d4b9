# pallas-lsp example: valid
# note: The same masked read as ref[...] and jnp.where, which the GPU interpreter runs.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref):
    idx = jnp.arange(64)
    x = jnp.where(idx < 40, x_ref[...], 0.0)
    o_ref[...] = x * 2.0


def main():
    x = jnp.ones((64,), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         interpret=plgpu.InterpretGPUParams())(x)
    print(out[38:42])


if __name__ == "__main__":
    main()
