# pallas-lsp example: valid
# note: A core-parallel axis of bound 1 (one core's share) before the arbitrary row axis: no more iterations than a v5e's one TensorCore.
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
        grid=(1, 4),
        in_specs=[pl.BlockSpec((16, 128), lambda c, i: (i, 0))],
        out_specs=pl.BlockSpec((16, 128), lambda c, i: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("core_parallel", "arbitrary")),
    )(x)


def main():
    print(square(jnp.full((64, 128), 3, jnp.bfloat16))[0, 0])


if __name__ == "__main__":
    main()
