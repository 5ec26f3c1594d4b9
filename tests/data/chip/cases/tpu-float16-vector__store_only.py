# case: family=tpu-float16-vector chip=raises cpu=lowers interp=clean
# intent: compute in float32 and store the (8, 128) result as float16 (no float16 input).
# grounded: Mosaic (libtpu): a float16 vector store; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def halve_kernel(x_ref, o_ref):
    o_ref[...] = (x_ref[...] * 0.5).astype(jnp.float16)  # FAIL


def launch(x):
    return pl.pallas_call(
        halve_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float16),  # FAIL
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 10.0,)


def reference(x):
    return (x * 0.5).astype("float16")


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
