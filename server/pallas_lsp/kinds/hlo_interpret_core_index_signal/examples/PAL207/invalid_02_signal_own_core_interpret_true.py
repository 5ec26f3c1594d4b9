# pallas-lsp example: invalid
# note: Even a signal to core 0 (the only core) fails under interpret=True; TPU interpret params run it.
# raises: NotImplementedError: Multiple core support not implemented
# fix: Interpret it as a TPU kernel (interpret=pltpu.InterpretParams(); the signalled core 0 is its one core)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, sem):
    pl.semaphore_signal(sem, 2, core_index=0)  # error
    pl.semaphore_wait(sem, 2)
    o_ref[...] = x_ref[...] + 5.0


@jax.jit
def bump(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          scratch_shapes=[pltpu.SemaphoreType.REGULAR], interpret=True)(x)


if __name__ == "__main__":
    print(bump(jnp.zeros((8, 128), jnp.float32))[0, :2])
