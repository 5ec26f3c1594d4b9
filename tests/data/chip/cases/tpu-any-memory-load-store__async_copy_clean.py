# case: family=tpu-any-memory-load-store chip=clean cpu=lowers interp=clean
# intent: the clean twin of helper_reads_any_rows: the HBM (pl.ANY) table is copied into VMEM scratch with make_async_copy, then read there.
# grounded: ANY refs are accessed with async_copy (jax/_src/pallas/mosaic/lowering.py); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def offset_kernel(table_ref, x_ref, o_ref, head, sem):
    copy = pltpu.make_async_copy(table_ref.at[0:8, :], head, sem)  # DECOY
    copy.start()
    copy.wait()
    o_ref[...] = x_ref[...] + head[...]


def launch(table, x):
    return pl.pallas_call(
        offset_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.int32),
        grid=(2,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY),
                  pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.int32), pltpu.SemaphoreType.DMA(())],
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
