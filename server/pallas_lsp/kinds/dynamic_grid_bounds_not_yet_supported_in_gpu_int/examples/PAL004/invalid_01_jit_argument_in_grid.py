# pallas-lsp example: invalid
# raises: NotImplementedError: Dynamic grid bounds not \(yet\) supported in GPU interpret mode
# fix: Make `num_steps` static: add it to static_argnames of jax.jit
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


@jax.jit
def double(x, num_steps):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(num_steps,),  # error
                          interpret=plgpu.InterpretGPUParams())(x)


def main():
    print(double(jnp.ones((8,), jnp.float32), 2))


if __name__ == "__main__":
    main()
