# case: family=tpu-int8-block-tiling chip=raises cpu=lowers interp=clean
# intent: copy a (128, 256) int8 array in (8, 256) row bands on a grid: int8 memrefs tile (32, 128) on the chip.
# grounded: the chip's E2002 CompileTimeMosaicMisalignedBlockAndTiling on a 16-row int8 block (tests/data/chip labels); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False
M, N, TM = 128, 256, 8


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
