# pallas-lsp example: invalid
# note: functools.partial binds a Ref made in the jitted function to the kernel's first parameter; the launch is GPU-interpreted.
# raises: TypeError: _pallas_call_state_discharge_rule\(\) got an unexpected keyword argument 'kernel_arg_transforms'
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def weighted(weights, x_ref, o_ref):
    o_ref[...] = x_ref[...] * weights[...]  # error


@jax.jit
def apply(x):
    weights = jax.new_ref(jnp.linspace(0.0, 1.0, 128, dtype=jnp.float32))
    return pl.pallas_call(functools.partial(weighted, weights), out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=plgpu.InterpretGPUParams())(x)


if __name__ == "__main__":
    print(apply(jnp.ones((128,), jnp.float32))[:4])
