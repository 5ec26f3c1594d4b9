# pallas-lsp example: invalid
# note: Two operands after a scalar-prefetch one: the alias counts from the prefetch operand, so 3 is past the end.
# raises: ValueError: input_output_aliases contains the mapping '3:0' with input index 3 outside the range \[0, 3\)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def add_rows_kernel(start_ref, acc_ref, rows_ref, o_ref):
    o_ref[...] = acc_ref[...] + rows_ref[...]


def add_rows(start, acc, rows):
    spec = pl.BlockSpec((8, 128), lambda i, start_ref: (start_ref[0] + i, 0))
    grid_spec = pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(1,), in_specs=[spec, spec],
                                             out_specs=spec)
    return pl.pallas_call(add_rows_kernel, out_shape=jax.ShapeDtypeStruct(acc.shape, acc.dtype),
                          grid_spec=grid_spec, input_output_aliases={3: 0},  # error
                          interpret=True)(start, acc, rows)


if __name__ == "__main__":
    print(add_rows(jnp.array([1], jnp.int32), jnp.zeros((32, 128)), jnp.ones((32, 128)))[8, :2])
