# case: family=tpu-dma-wait-regular-semaphore chip=clean cpu=lowers interp=clean
# intent: the fixed program of regular_array_slots: the semaphore array is allocated as SemaphoreType.DMA((2,)).
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def halves_kernel(x_hbm, o_ref, bufs, sems):
    copies = [pltpu.make_async_copy(x_hbm.at[pl.ds(i * 8, 8)], bufs.at[i], sems.at[i]) for i in range(2)]
    for c in copies:
        c.start()
    for c in copies:
        c.wait()
    o_ref[...] = bufs[0] * bufs[1]


def launch(x):
    return pl.pallas_call(
        halves_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128) / 100.0,)


def reference(x):
    return x[:8] * x[8:]


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
