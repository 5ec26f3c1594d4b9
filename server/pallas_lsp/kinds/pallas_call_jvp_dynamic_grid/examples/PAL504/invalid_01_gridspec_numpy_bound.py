# pallas-lsp example: invalid
# note: A GridSpec whose grid holds a NumPy integer (not a Python int), differentiated with jax.grad.
# raises: NotImplementedError: interpret with dynamic grid bounds unsupported
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def exp_kernel(x_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...])


def total(x):
    spec = pl.GridSpec(grid=(np.int32(1),))  # error
    y = pl.pallas_call(exp_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid_spec=spec,
                       interpret=pltpu.InterpretParams())(x)
    return y.sum()


def main():
    print(jax.grad(total)(jnp.zeros((8, 128), jnp.float32))[0, :4])


if __name__ == "__main__":
    main()
