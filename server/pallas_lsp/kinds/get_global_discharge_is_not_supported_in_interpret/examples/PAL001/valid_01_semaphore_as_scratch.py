# pallas-lsp example: valid
# note: The semaphore passed as kernel scratch instead of taken with get_global runs in interpret mode.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, sem):
    pl.semaphore_signal(sem)
    pl.semaphore_wait(sem)
    o_ref[...] = x_ref[...] + 1.0


def main():
    x = jnp.zeros((8,), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         scratch_shapes=[plgpu.SemaphoreType.REGULAR], interpret=True)(x)
    print(out)


if __name__ == "__main__":
    main()
