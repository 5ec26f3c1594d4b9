# pallas-lsp example: invalid
# note: A signal naming a core (a literal) under interpret=True.
# raises: NotImplementedError: Multiple core support not implemented
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, sem):
    pl.semaphore_signal(sem, 1, core_index=1)  # error
    pl.semaphore_wait(sem, 1)
    o_ref[...] = x_ref[...] * 2.0


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         scratch_shapes=[pltpu.SemaphoreType.REGULAR], interpret=True)(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
