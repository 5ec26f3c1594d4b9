# case: family=tpu-float16-vector chip=raises cpu=lowers interp=clean
# intent: copy a (32, 128) float16 array in (8, 128) blocks, no arithmetic.
# grounded: TPUs have no IEEE float16 vector type; Mosaic (libtpu) 'Invalid vector type for load'; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]  # FAIL


def launch(x):
    return pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float16),
        grid=(4,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],  # FAIL
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        interpret=INTERPRET,
    )(x)


def inputs():
    return ((jnp.arange(32 * 128, dtype=jnp.float32).reshape(32, 128) / 64.0).astype(jnp.float16),)


def reference(x):
    return x


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
