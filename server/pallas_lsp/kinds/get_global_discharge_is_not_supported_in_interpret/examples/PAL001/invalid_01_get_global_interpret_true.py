# pallas-lsp example: invalid
# raises: TypeError: No ir_type_handler for aval type
# fix: Pass the semaphore to the kernel as scratch (scratch_shapes=[plgpu.SemaphoreType.REGULAR])
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)  # error
    pl.semaphore_signal(sem)
    pl.semaphore_wait(sem)
    o_ref[...] = x_ref[...] + 1.0


def main():
    x = jnp.zeros((8,), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
    print(out)


if __name__ == "__main__":
    main()
