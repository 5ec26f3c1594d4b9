# pallas-lsp example: valid
# note: An explicit decrement=True wait under TPU interpret params.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, sem):
    pl.semaphore_signal(sem, 2)
    pl.semaphore_wait(sem, 2, decrement=True)
    o_ref[...] = x_ref[...] - 1.0


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         scratch_shapes=[pltpu.SemaphoreType.REGULAR],
                         interpret=pltpu.InterpretParams())(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
