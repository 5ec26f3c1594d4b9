# pallas-lsp example: invalid
# note: A Triton-style masked plt.load in a pallas_call kernel run with GPU interpret params.
# raises: NotImplementedError: load_p is not supported on GPU yet
# fix: Read it with ref[...] and apply the mask with jnp.where
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import triton as plt


def kernel(x_ref, o_ref):
    idx = jnp.arange(64)
    x = plt.load(x_ref, mask=idx < 40, other=0.0)  # error
    o_ref[...] = x * 2.0


def main():
    x = jnp.ones((64,), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         interpret=plgpu.InterpretGPUParams())(x)
    print(out[38:42])


if __name__ == "__main__":
    main()
