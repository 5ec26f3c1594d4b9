# pallas-lsp example: valid
# note: A 200000-entry page table: 781 KiB fits. The chip's label: tests/data/chip/labels.json, cases/tpu-smem-capacity__page_table_prefetch_fits_clean.py.
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

PAGES = 200000
ROWS, COLS = 64, 128


def gather_kernel(table_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] + table_ref[pl.program_id(0)].astype(jnp.float32)


def launch(table, x):
    spec = pl.BlockSpec((8, COLS), lambda i, table: (i, 0))
    return pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1, grid=(ROWS // 8,), in_specs=[spec], out_specs=spec),
    )(table, x)


def main():
    # Compiled for TPU: run it where a TPU is attached.
    print(launch(jnp.zeros((PAGES,), jnp.int32), jnp.ones((ROWS, COLS), jnp.float32)).shape)


if __name__ == "__main__":
    main()
