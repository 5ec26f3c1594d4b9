# pallas-lsp example: invalid
# note: The kernel's helper reads a VMEM Ref made in the jitted wrapper (TPU interpret params).
# raises: NotImplementedError: pallas_call does not support closing over Refs in memory space vmem\. Use pl\.kernel instead\.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


@jax.jit
def accumulate(x):
    acc = jax.new_ref(jnp.zeros(x.shape, x.dtype), memory_space=pltpu.VMEM)

    def current():
        return acc[...]  # error

    def kernel(x_ref, o_ref):
        o_ref[...] = current() + x_ref[...]

    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=pltpu.InterpretParams())(x)


if __name__ == "__main__":
    print(accumulate(jnp.ones((8, 128), jnp.float32))[0, :4])
