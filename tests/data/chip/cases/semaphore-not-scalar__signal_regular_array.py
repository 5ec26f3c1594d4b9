# case: family=semaphore-not-scalar chip=raises cpu=raises interp=raises
# intent: count finished steps on the first slot of a (4,) REGULAR semaphore array, but the whole array is signalled and waited.
# grounded: jax/_src/pallas/primitives.py check_sem_avals ("Cannot signal on a non-()-shaped semaphore: (4,)")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def count_kernel(x_ref, o_ref, counters):
    pl.semaphore_signal(counters, 1)  # FAIL
    pl.semaphore_wait(counters, 1)
    o_ref[...] = x_ref[...] - 1.0


def launch(x):
    return pl.pallas_call(
        count_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        scratch_shapes=[pltpu.SemaphoreType.REGULAR((4,))],  # FAIL
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
