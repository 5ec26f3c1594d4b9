# pallas-lsp example: invalid
# note: Triton settings kept in a module-level dict, the old API: interpret mode lowers the call and hashes it.
# raises: TypeError: unhashable type: 'dict'
# fix: Pass `plt.CompilerParams(...)` instead of a dict
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plt

TRITON_PARAMS = {"triton": {"num_warps": 4, "num_stages": 2}}


def square_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * x_ref[...]


def square(x):
    return pl.pallas_call(square_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          compiler_params=TRITON_PARAMS, interpret=True)(x)  # error


if __name__ == "__main__":
    print(square(jnp.full((16, 16), 3.0, jnp.float32))[0, :4])
