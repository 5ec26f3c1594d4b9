# case: family=tpu-narrow-int-vector chip=raises cpu=lowers interp=clean
# intent: x * 2 - y on (32, 128) int8 tiles (int8 multiply and subtract, no addition).
# grounded: Mosaic (libtpu) lowering of arith.muli/subi on vector<i8>: not in the open-source canonicalisation; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def axpy_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] * jnp.int8(2) - y_ref[...]  # FAIL


def launch(x, y):
    return pl.pallas_call(
        axpy_kernel,
        out_shape=jax.ShapeDtypeStruct((32, 128), jnp.int8),
        interpret=INTERPRET,
    )(x, y)


def inputs():
    base = jnp.arange(32 * 128, dtype=jnp.int32).reshape(32, 128)
    return ((base % 40).astype(jnp.int8), (base % 9).astype(jnp.int8))


def reference(x, y):
    return (x.astype("int32") * 2 - y.astype("int32")).astype("int8")


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
