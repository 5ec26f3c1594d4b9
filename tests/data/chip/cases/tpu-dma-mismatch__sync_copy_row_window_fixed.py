# case: family=tpu-dma-mismatch chip=clean cpu=lowers interp=clean
# intent: the fixed program of sync_copy_row_window: the pl.ds window has the scratch's 8 rows.
# grounded: fix of PAL730 (the window sized like the buffer)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False
ROWS = 8


def band_kernel(x_hbm, o_ref, band):
    i = pl.program_id(0)
    pltpu.sync_copy(x_hbm.at[pl.ds(i * ROWS, ROWS)], band)  # DECOY
    o_ref[...] = band[...] * 2.0


def launch(x):
    return pl.pallas_call(
        band_kernel,
        out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
        grid=(4,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((ROWS, 128), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((ROWS, 128), jnp.float32)],
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(48 * 128, dtype=jnp.float32).reshape(48, 128) / 100.0,)


def reference(x):
    return x[:32] * 2.0


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
