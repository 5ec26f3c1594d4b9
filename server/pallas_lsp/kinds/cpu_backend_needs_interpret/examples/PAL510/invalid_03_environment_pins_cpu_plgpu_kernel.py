# pallas-lsp example: invalid
# note: JAX_PLATFORMS=cpu set in the file before jax is imported; a plgpu.kernel without interpret.
# raises: ValueError: Only interpret mode is supported on CPU backend\.
# fix: Interpret it where it runs on a CPU (interpret=jax.default_backend() == "cpu")
import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.experimental.pallas import mosaic_gpu as plgpu  # noqa: E402


def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 3.0


def main():
    add3 = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))  # error
    print(add3(jnp.zeros((128,), jnp.float32))[:4])


if __name__ == "__main__":
    main()
