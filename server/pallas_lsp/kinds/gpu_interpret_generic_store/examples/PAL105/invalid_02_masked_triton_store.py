# pallas-lsp example: invalid
# note: A masked Triton-style store in a pallas_call kernel under GPU interpret params: the generic store primitive has no GPU interpreter rule.
# raises: NotImplementedError: swap_p is not supported on GPU yet
# fix: Write it with ref[...] = jnp.where(mask, value, ref[...])
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import triton as plt


def kernel(x_ref, o_ref):
    o_ref[...] = jnp.zeros(o_ref.shape, o_ref.dtype)
    keep = jnp.arange(64) < 10
    plt.store(o_ref, x_ref[...] * 3.0, mask=keep)  # error


def main():
    x = jnp.ones((64,), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         interpret=plgpu.InterpretGPUParams())(x)
    print(out[8:12])


if __name__ == "__main__":
    main()
