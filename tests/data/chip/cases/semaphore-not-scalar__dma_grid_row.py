# case: family=semaphore-not-scalar chip=raises cpu=raises interp=raises
# intent: a (2, 2) grid of DMA semaphores; the copy indexes only the row, sems.at[1], leaving a (2,) semaphore.
# grounded: jax/_src/pallas/mosaic/primitives.py _dma_start_abstract_eval ("Cannot signal on a non-()-shaped semaphore: (2,)")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def row_kernel(x_hbm, o_ref, buf, sems):
    cp = pltpu.make_async_copy(x_hbm, buf, sems.at[1])  # FAIL
    cp.start()
    cp.wait()
    o_ref[...] = jnp.maximum(buf[...], 0.0)


def launch(x):
    return pl.pallas_call(
        row_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM(x.shape, x.dtype), pltpu.SemaphoreType.DMA((2, 2))],  # FAIL
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.linspace(-1.0, 1.0, 16 * 128, dtype=jnp.float32).reshape(16, 128),)


def reference(x):
    import numpy as np
    return np.maximum(x, 0.0)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
