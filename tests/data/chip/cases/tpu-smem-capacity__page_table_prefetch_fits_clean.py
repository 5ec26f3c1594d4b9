# case: family=tpu-smem-capacity chip=clean cpu=lowers interp=clean
# intent: the paged gather with a 200000-entry page table (781 KiB): fits the 1 MiB of SMEM.
# grounded: the SMEM budget model (analysis/vmem_budget.py, calibrated in tests/data/chip/vmem_calibration.jsonl); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False

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
        interpret=INTERPRET,
    )(table, x)


def inputs():
    return jnp.zeros((PAGES,), jnp.int32), jnp.ones((ROWS, COLS), jnp.float32)


def reference(table, x):
    return x


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
