# case: family=tpu-any-memory-load-store chip=raises cpu=raises interp=clean
# intent: a helper reads the first 8 rows of an int32 table kept in HBM (memory_space=pltpu.HBM) with a plain slice, inside a gridded kernel.
# grounded: jax/_src/pallas/mosaic/lowering.py _load_lowering_rule ("Loads are only allowed on VMEM and SMEM references.")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def _head_rows(table_ref):
    return table_ref[0:8, :]  # FAIL


def offset_kernel(table_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] + _head_rows(table_ref)


def launch(table, x):
    return pl.pallas_call(
        offset_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.int32),
        grid=(2,),
        in_specs=[pl.BlockSpec(memory_space=pltpu.HBM),  # FAIL
                  pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        interpret=INTERPRET,
    )(table, x)


def inputs():
    return (jnp.arange(32 * 128, dtype=jnp.int32).reshape(32, 128),
            jnp.ones((16, 128), jnp.int32))


def reference(table, x):
    import numpy as np
    return x + np.concatenate([table[:8], table[:8]])


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
