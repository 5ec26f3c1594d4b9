# pallas-lsp example: invalid
# note: A TPU semaphore type in a Mosaic GPU kernel: the GPU one is what get_global accepts.
# raises: NotImplementedError: get_global only supports semaphores, got Ref<semaphore_mem>
# fix: Use the GPU semaphore type (plgpu.SemaphoreType.REGULAR)
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def body(x_ref, o_ref):
    sem = pl.get_global(pltpu.SemaphoreType.REGULAR)  # error
    pl.semaphore_signal(sem)
    pl.semaphore_wait(sem)
    o_ref[...] = x_ref[...] * 2.0


def main():
    kernel = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))
    lowered = jax.jit(kernel).trace(jax.ShapeDtypeStruct((128,), jnp.float32)).lower(
        lowering_platforms=("cuda",))
    print(len(lowered.as_text()) > 0)


if __name__ == "__main__":
    main()
