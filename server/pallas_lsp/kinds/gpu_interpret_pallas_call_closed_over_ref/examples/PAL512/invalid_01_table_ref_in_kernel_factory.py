# pallas-lsp example: invalid
# note: A kernel factory closes over a jax.new_ref made in the jitted wrapper; the launch is GPU-interpreted.
# raises: TypeError: _pallas_call_state_discharge_rule\(\) got an unexpected keyword argument 'kernel_arg_transforms'
# fix: Pass `weights[...]` to the launch as an input (a new kernel parameter `weights`)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def make_kernel(weights):
    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] + weights[...]  # error
    return kernel


@jax.jit
def shift(x):
    weights = jax.new_ref(jnp.ones(x.shape, x.dtype))
    return pl.pallas_call(make_kernel(weights), out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=plgpu.InterpretGPUParams())(x)


if __name__ == "__main__":
    print(shift(jnp.zeros((128,), jnp.float32))[:4])
