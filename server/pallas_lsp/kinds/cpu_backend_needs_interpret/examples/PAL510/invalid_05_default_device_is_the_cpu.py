# pallas-lsp example: invalid
# note: The script makes a CPU device the default one: the compiled Mosaic TPU launch is placed, and lowered, on the CPU.
# raises: ValueError: Only interpret mode is supported on CPU backend\.
# fix: Interpret it where it runs on a CPU (interpret=jax.default_backend() == "cpu")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

jax.config.update("jax_default_device", jax.devices("cpu")[0])


def halve_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


def halve(x):
    return pl.pallas_call(halve_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),  # error
                          compiler_params=pltpu.CompilerParams())(x)


if __name__ == "__main__":
    print(halve(jnp.ones((8, 128), jnp.float32))[0, :4])
