# case: family=tpu-dma-wait-regular-semaphore chip=raises cpu=raises interp=raises
# intent: a scoped VMEM buffer and semaphore for one int32 fetch, the semaphore scoped as SemaphoreType.REGULAR.
# grounded: jax/_src/pallas/mosaic/primitives.py _dma_wait_abstract_eval ("dma_wait requires a DMA semaphore, but got a regular semaphore.")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def scoped_kernel(x_hbm, o_ref):
    def body(buf, sem):
        pltpu.async_copy(x_hbm, buf, sem).wait()  # FAIL
        o_ref[...] = buf[...] * 3

    pl.run_scoped(body, pltpu.VMEM((8, 128), jnp.int32), pltpu.SemaphoreType.REGULAR)  # FAIL


def launch(x):
    return pl.pallas_call(
        scoped_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.int32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(8 * 128, dtype=jnp.int32).reshape(8, 128),)


def reference(x):
    return x * 3


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
