# case: family=tpu-int8-block-tiling chip=raises cpu=lowers interp=clean
# intent: copy a (64, 256) int8 array in (16, 256) row bands with no arithmetic (the block shape of block_tiling__int8_sublane_16 without its addition).
# grounded: the clean twin: is the int8 addition or the 16-row int8 block what the chip refuses; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


M, N, TM = 64, 256, 16


def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def launch(x):
    return pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.int8),
        grid=(M // TM,),
        in_specs=[pl.BlockSpec((TM, N), lambda i: (i, 0))],  # FAIL
        out_specs=pl.BlockSpec((TM, N), lambda i: (i, 0)),
        interpret=INTERPRET,
    )(x)


def inputs():
    return ((jnp.arange(M * N, dtype=jnp.int32).reshape(M, N) % 100).astype(jnp.int8),)


def reference(x):
    return x


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
