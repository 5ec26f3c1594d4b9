# pallas-lsp example: invalid
# note: pl.program_id in the function that builds a pl.kernel (TPU mesh), before the launch.
# raises: AssertionError: ^$
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def scale(x):
    factor = pl.program_id(0) + 2  # error

    def body(x_ref, o_ref):
        o_ref[...] = x_ref[...] * 2.0

    mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)
    return pl.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), mesh=mesh)(x), factor


def main():
    print(jax.jit(scale).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32)).jaxpr)


if __name__ == "__main__":
    main()
