# case: family=semaphore-not-scalar chip=clean cpu=lowers interp=clean
# intent: the fixed program of signal_regular_array: one slot, counters.at[0], is signalled and waited.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def count_kernel(x_ref, o_ref, counters):
    pl.semaphore_signal(counters.at[0], 1)
    pl.semaphore_wait(counters.at[0], 1)
    o_ref[...] = x_ref[...] - 1.0


def launch(x):
    return pl.pallas_call(
        count_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        scratch_shapes=[pltpu.SemaphoreType.REGULAR((4,))],
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.ones((8, 128), dtype=jnp.float32),)


def reference(x):
    return x - 1.0


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
