# pallas-lsp example: invalid
# note: String semantics on a grid given as an int: grid=4 is one axis of 4 iterations, "core_parallel" on it.
# raises: JaxRuntimeError: INVALID_ARGUMENT: Mosaic failed to compile TPU kernel: Core-parallel dimension 0 has iteration bound: 4, which is greater than the number of active cores: 1\.
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def square_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * x_ref[...]


def square(x):
    return pl.pallas_call(
        square_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=4,
        in_specs=[pl.BlockSpec((16, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((16, 128), lambda i: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("core_parallel",)),  # error
    )(x)


def main():
    print(square(jnp.full((64, 128), 3, jnp.bfloat16))[0, 0])


if __name__ == "__main__":
    main()
