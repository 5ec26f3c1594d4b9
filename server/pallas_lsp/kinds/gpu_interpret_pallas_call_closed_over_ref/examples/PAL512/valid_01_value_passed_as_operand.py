# pallas-lsp example: valid
# note: The same data passed to the launch as an operand: no Ref is closed over.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, w_ref, o_ref):
    o_ref[...] = x_ref[...] + w_ref[...]


@jax.jit
def shift(x):
    weights = jnp.ones(x.shape, x.dtype)
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=plgpu.InterpretGPUParams())(x, weights)


if __name__ == "__main__":
    print(shift(jnp.zeros((128,), jnp.float32))[:4])
