# pallas-lsp example: invalid
# note: The environment pins the CPU platform and the launch says interpret=False outright.
# raises: ValueError: Only interpret mode is supported on CPU backend\.
# fix: Interpret it where it runs on a CPU (interpret=jax.default_backend() == "cpu")
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def main():
    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    double = pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),  # error
                            interpret=False)
    print(double(x)[0, :4])


if __name__ == "__main__":
    main()
