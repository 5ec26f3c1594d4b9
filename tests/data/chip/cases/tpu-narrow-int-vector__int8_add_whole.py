# case: family=tpu-narrow-int-vector chip=raises cpu=lowers interp=clean
# intent: add two whole (32, 128) int8 arrays (no grid, no BlockSpecs) in the kernel.
# grounded: Mosaic canonicalize_mosaic.cc canonicalize_arith_addi (open source until 2025: 'Only vector<i16> and vector<i32> are supported'); libtpu's Mosaic; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]  # FAIL


def launch(x, y):
    return pl.pallas_call(
        add_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        interpret=INTERPRET,
    )(x, y)


def inputs():
    base = jnp.arange(32 * 128, dtype=jnp.int32).reshape(32, 128)
    return ((base % 50).astype(jnp.int8), (base % 7 - 3).astype(jnp.int8))


def reference(x, y):
    return (x.astype("int32") + y.astype("int32")).astype("int8")


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
