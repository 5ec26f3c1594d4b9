# pallas-lsp example: valid
# note: The aliased operand is the float one, index 1 after the scalar-prefetch table.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def gather_rows_kernel(rows_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def gather_rows(rows, x):
    spec = pl.BlockSpec((8, 128), lambda i, rows_ref: (rows_ref[i], 0))
    grid_spec = pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(4,), in_specs=[spec], out_specs=spec)
    return pl.pallas_call(gather_rows_kernel, out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
                          grid_spec=grid_spec, input_output_aliases={1: 0},
                          interpret=True)(rows, x)


if __name__ == "__main__":
    print(gather_rows(jnp.array([3, 2, 1, 0], jnp.int32), jnp.ones((32, 128), jnp.float32))[0, :2])
