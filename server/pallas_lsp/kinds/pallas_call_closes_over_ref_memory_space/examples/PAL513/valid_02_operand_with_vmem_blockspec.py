# pallas-lsp example: valid
# note: The value passed as an operand with a VMEM BlockSpec instead of a closed-over Ref.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


@jax.jit
def bump(x):
    def kernel(acc_ref, o_ref):
        o_ref[...] = acc_ref[...] + 1.0

    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)], interpret=True)(x)


if __name__ == "__main__":
    print(bump(jnp.ones((8, 128), jnp.float32))[0, :4])
