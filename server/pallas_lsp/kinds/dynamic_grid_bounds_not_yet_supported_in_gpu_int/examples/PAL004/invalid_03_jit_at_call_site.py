# pallas-lsp example: invalid
# note: jax.jit applied at the call site traces `n` too.
# raises: NotImplementedError: Dynamic grid bounds not \(yet\) supported in GPU interpret mode
# fix: Make `n` static: add it to static_argnames of jax.jit
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


def negate(x, n):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(n,),  # error
                          interpret=plgpu.InterpretGPUParams())(x)


def main():
    print(jax.jit(negate)(jnp.ones((8,), jnp.float32), 1))


if __name__ == "__main__":
    main()
