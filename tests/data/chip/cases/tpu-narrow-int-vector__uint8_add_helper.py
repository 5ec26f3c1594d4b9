# case: family=tpu-narrow-int-vector chip=raises cpu=lowers interp=clean
# intent: brighten a (64, 256) uint8 image in (32, 256) row bands through a helper that adds a Python int.
# grounded: Mosaic canonicalize_mosaic.cc canonicalize_arith_addi (open source until 2025: 'Only vector<i16> and vector<i32> are supported'); libtpu's Mosaic; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


ROWS, COLS, TR = 64, 256, 32


def brighten(v):
    return v + 3  # FAIL


def bright_kernel(img_ref, o_ref):
    o_ref[...] = brighten(img_ref[...])


def launch(img):
    return pl.pallas_call(
        bright_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.uint8),
        grid=(ROWS // TR,),
        in_specs=[pl.BlockSpec((TR, COLS), lambda i: (i, 0))],  # FAIL
        out_specs=pl.BlockSpec((TR, COLS), lambda i: (i, 0)),
        interpret=INTERPRET,
    )(img)


def inputs():
    img = jax.random.randint(jax.random.key(0), (ROWS, COLS), 0, 250, dtype=jnp.uint8)
    return (img,)


def reference(img):
    return (img.astype("int32") + 3).astype("uint8")


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
