# case: family=tpu-unproven-lane-alignment chip=raises cpu=lowers interp=clean
# intent: sum the 128-lane windows starting at lanes 0, 32, 64, 96 of an (8, 256) f32 tile in a fori_loop (x_ref[:, pl.ds(j * 32, 128)]).
# grounded: Mosaic (libtpu) cannot prove the dynamic lane start j * 32 is a multiple of 128 (E2003); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def window_sum_kernel(x_ref, o_ref):
    def body(j, acc):
        return acc + x_ref[:, pl.ds(j * 32, 128)]  # FAIL

    o_ref[...] = jax.lax.fori_loop(0, 4, body, jnp.zeros((8, 128), jnp.float32))


def launch(x):
    return pl.pallas_call(
        window_sum_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(8 * 256, dtype=jnp.float32).reshape(8, 256) / 256.0,)


def reference(x):
    return sum(x[:, 32 * j:32 * j + 128] for j in range(4))


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
