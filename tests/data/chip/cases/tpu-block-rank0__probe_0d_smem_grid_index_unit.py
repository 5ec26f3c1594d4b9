# case: family=tpu-block-rank0 chip=raises cpu=lowers interp=clean
# intent: probe: the 0-d int32 offset in SMEM under a 2-step grid, read as k_ref[()].
# grounded: jax/_src/pallas/mosaic/lowering.py _check_block_mappings (SMEM whole-array blocks are skipped)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def offset_kernel(x_ref, k_ref, o_ref):
    o_ref[...] = x_ref[...] + k_ref[()]


def launch(x, k):
    return pl.pallas_call(
        offset_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(2,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0)), pl.BlockSpec(memory_space=pltpu.SMEM)],  # FAIL
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        interpret=INTERPRET,
    )(x, k)


def inputs():
    return (jnp.arange(16 * 128, dtype=jnp.int32).reshape(16, 128), jnp.full((), 7, jnp.int32))


def reference(x, k):
    return x + k


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
