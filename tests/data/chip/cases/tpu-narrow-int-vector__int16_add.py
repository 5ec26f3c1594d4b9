# case: family=tpu-narrow-int-vector chip=clean cpu=lowers interp=clean
# intent: add 1 to a (16, 128) int16 tile (v5e: 16-bit vector addition).
# grounded: Mosaic canonicalize_arith_addi ('vector<i16> addition is only supported on hardware generation v6+' unless compatibility mode); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def inc_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + jnp.int16(1)  # FAIL


def launch(x):
    return pl.pallas_call(
        inc_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.int16),
        interpret=INTERPRET,
    )(x)


def inputs():
    return ((jnp.arange(16 * 128, dtype=jnp.int32).reshape(16, 128) % 1000).astype(jnp.int16),)


def reference(x):
    return (x.astype("int32") + 1).astype("int16")


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
