# case: family=tpu-smem-narrow-int-arith chip=clean cpu=lowers interp=clean
# intent: the clean twin: an int16 scalar read from SMEM and cast to float32 with no integer arithmetic on it.
# grounded: scalar loads of narrow ints from SMEM and their casts; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def gain_kernel(w_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * w_ref[1].astype(jnp.float32)


def launch(w, x):
    return pl.pallas_call(
        gain_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM), pl.BlockSpec(memory_space=pltpu.VMEM)],
        interpret=INTERPRET,
    )(w, x)


def inputs():
    return (jnp.array([3, -5], dtype=jnp.int16), jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128) / 100.0)


def reference(w, x):
    return x * -5.0


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
