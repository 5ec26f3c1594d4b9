# pallas-lsp example: invalid
# raises: NotImplementedError: Dynamic grid bounds not \(yet\) supported in GPU interpret mode
# fix: Use the Python int `x.shape[0] // 4` instead of `jnp.int32(x.shape[0] // 4)`
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def main():
    x = jnp.ones((8,), jnp.float32)
    steps = jnp.int32(x.shape[0] // 4)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         grid=(steps,),  # error
                         interpret=plgpu.InterpretGPUParams())(x)
    print(out)


if __name__ == "__main__":
    main()
