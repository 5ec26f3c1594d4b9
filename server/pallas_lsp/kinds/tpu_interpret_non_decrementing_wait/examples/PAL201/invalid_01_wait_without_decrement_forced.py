# pallas-lsp example: invalid
# note: A helper waits without decrementing (the flag passed down by the kernel); TPU interpret mode forced.
# raises: NotImplementedError: Non-decrementing wait is not supported
# fix: Wait with decrement=True (the wait then consumes the value)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def wait_for(sem, consume):
    pl.semaphore_wait(sem, 2, decrement=consume)  # error


def kernel(x_ref, o_ref, sem):
    pl.semaphore_signal(sem, 2)
    wait_for(sem, False)
    o_ref[...] = x_ref[...] - 1.0


def main():
    x = jnp.ones((8, 128), jnp.float32)
    with pltpu.force_tpu_interpret_mode():
        out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                             scratch_shapes=[pltpu.SemaphoreType.REGULAR])(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
