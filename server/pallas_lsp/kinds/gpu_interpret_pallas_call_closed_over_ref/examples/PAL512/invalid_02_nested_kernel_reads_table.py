# pallas-lsp example: invalid
# note: The kernel is defined in the jitted function and reads a Ref made there; the launch is GPU-interpreted, its kernel's parameters one a line.
# raises: TypeError: _pallas_call_state_discharge_rule\(\) got an unexpected keyword argument 'kernel_arg_transforms'
# fix: Pass `table[...]` to the launch as an input (a new kernel parameter `table`)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


@jax.jit
def lookup(x, y):
    table = jax.new_ref(jnp.arange(128, dtype=jnp.float32))

    def kernel(
        x_ref,
        y_ref,
        o_ref,
    ):
        o_ref[...] = x_ref[...] * table[...] + y_ref[...]  # error

    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=plgpu.InterpretGPUParams())(x, y)


if __name__ == "__main__":
    print(lookup(jnp.ones((128,), jnp.float32), jnp.ones((128,), jnp.float32))[:4])
