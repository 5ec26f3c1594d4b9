# case: family=tpu-strided-lane-access chip=raises cpu=lowers interp=clean
# intent: read the odd lanes of a (2, 8, 256) int32 tile, x_ref[:, :, pl.ds(1, 128, stride=2)], through a helper.
# grounded: Mosaic (libtpu) strided load rule ("Not Implemented: Stride on last dim is not 1"); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def _odd_lanes(ref):
    return ref[:, :, pl.ds(1, 128, stride=2)]  # FAIL


def odd_kernel(x_ref, o_ref):
    o_ref[...] = _odd_lanes(x_ref) + 7


def launch(x):
    return pl.pallas_call(
        odd_kernel,
        out_shape=jax.ShapeDtypeStruct((2, 8, 128), jnp.int32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(2 * 8 * 256, dtype=jnp.int32).reshape(2, 8, 256),)


def reference(x):
    return x[:, :, 1::2] + 7


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
