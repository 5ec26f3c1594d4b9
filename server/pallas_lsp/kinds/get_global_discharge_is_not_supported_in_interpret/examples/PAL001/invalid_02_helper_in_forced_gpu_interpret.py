# pallas-lsp example: invalid
# note: A helper one call below the kernel, GPU interpret mode forced by a context manager.
# raises: TypeError: No ir_type_handler for aval type
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def acquire():
    return pl.get_global(plgpu.SemaphoreType.REGULAR)  # error


def kernel(x_ref, o_ref):
    sem = acquire()
    pl.semaphore_signal(sem)
    pl.semaphore_wait(sem)
    o_ref[...] = x_ref[...] + 1.0


def main():
    x = jnp.zeros((128,), jnp.float32)
    with plgpu.force_gpu_interpret_mode():
        out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    print(out)


if __name__ == "__main__":
    main()
