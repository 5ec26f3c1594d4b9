# case: family=tpu-unproven-lane-alignment chip=clean cpu=lowers interp=clean
# intent: the clean twin of shifted_start: the lane start is written i * 128, which Mosaic proves a multiple of 128 (muli by a constant).
# grounded: isGuaranteedDivisible follows arith.muli by a multiple (jaxlib/mosaic tpu_dialect.cc at jax-v0.8.3); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def scaled_kernel(x_ref, o_ref):
    start = pl.program_id(0) * 128
    o_ref[...] = x_ref[:, pl.ds(start, 128)]  # DECOY


def launch(x):
    return pl.pallas_call(
        scaled_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 512), jnp.float32),
        grid=(4,),
        in_specs=[pl.BlockSpec((8, 512), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (0, i)),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(8 * 512, dtype=jnp.float32).reshape(8, 512),)


def reference(x):
    return x


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
