# pallas-lsp example: invalid
# note: A Ref in SMEM closed over with interpret=True.
# raises: NotImplementedError: pallas_call does not support closing over Refs in memory space smem\. Use pl\.kernel instead\.
# fix: Make `base` without a memory space (pallas_call accepts closing over such a Ref)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


@jax.jit
def offset(x):
    base = jax.new_ref(jnp.full((8, 128), 2.0, jnp.float32), memory_space=pltpu.SMEM)

    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] + base[...]  # error

    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


if __name__ == "__main__":
    print(offset(jnp.ones((8, 128), jnp.float32))[0, :4])
