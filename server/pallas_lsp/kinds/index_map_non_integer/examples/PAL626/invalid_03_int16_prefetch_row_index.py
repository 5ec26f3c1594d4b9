# pallas-lsp example: invalid
# note: An int16 scalar-prefetch entry plus a Python int is still int16: the index map returns an int16 index (raised under jax 0.10.2 and 0.12.0.1, and on a TPU v5e).
# raises: ValueError: must return integer scalars\. Output\[0\] has type int16\[\]
# fix: Cast the int16 scalar-prefetch read to int32 in the index map
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def copy_kernel(rows_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


def gather(rows, table):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(3,),
        in_specs=[pl.BlockSpec((8, 128), lambda i, rows_ref: (rows_ref[i] - 1, 0))],  # error
        out_specs=pl.BlockSpec((8, 128), lambda i, rows_ref: (i, 0)),
    )
    return pl.pallas_call(copy_kernel, grid_spec=grid_spec,
                          out_shape=jax.ShapeDtypeStruct((24, 128), jnp.float32), interpret=True)(rows, table)


def main():
    rows = jnp.array([4, 1, 2], dtype=jnp.int16)
    print(gather(rows, jnp.zeros((32, 128), jnp.float32)).sum())


if __name__ == "__main__":
    main()
