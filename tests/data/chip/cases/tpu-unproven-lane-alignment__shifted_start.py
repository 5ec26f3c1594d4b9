# case: family=tpu-unproven-lane-alignment chip=raises cpu=lowers interp=clean
# intent: at grid step i, copy the 128-lane window starting at lane i << 7 (a multiple of 128 written as a shift) of an (8, 512) f32 block.
# grounded: Mosaic (libtpu) proves divisibility through constants, muli, addi, subi, remsi, minsi, select and tpu.assume_multiple, not shli (jaxlib/mosaic tpu_dialect.cc isGuaranteedDivisible at jax-v0.8.3); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def shifted_kernel(x_ref, o_ref):
    start = pl.program_id(0) << 7
    o_ref[...] = x_ref[:, pl.ds(start, 128)]  # FAIL


def launch(x):
    return pl.pallas_call(
        shifted_kernel,
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
