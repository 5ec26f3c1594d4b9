# pallas-lsp example: valid
# note: A local signal (device_id=None) runs under interpret=True.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, sem):
    pl.semaphore_signal(sem, 1, device_id=None)
    pl.semaphore_wait(sem, 1)
    o_ref[...] = x_ref[...]


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         scratch_shapes=[pltpu.SemaphoreType.REGULAR], interpret=True)(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
