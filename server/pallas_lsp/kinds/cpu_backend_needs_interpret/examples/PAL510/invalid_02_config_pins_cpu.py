# pallas-lsp example: invalid
# note: The script pins the CPU platform and launches a kernel compiled for Mosaic TPU.
# raises: ValueError: Only interpret mode is supported on CPU backend\.
# fix: Interpret it where it runs on a CPU (interpret=jax.default_backend() == "cpu")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

jax.config.update("jax_platforms", "cpu")


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def add(x, y):
    return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),  # error
                          compiler_params=pltpu.CompilerParams())(x, y)


if __name__ == "__main__":
    x = jnp.ones((8, 128), jnp.float32)
    print(add(x, x)[0, :4])
