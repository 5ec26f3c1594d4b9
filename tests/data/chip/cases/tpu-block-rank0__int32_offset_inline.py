# case: family=tpu-block-rank0 chip=raises cpu=raises interp=clean
# intent: add a 0-d int32 offset given an inline BlockSpec with block shape () (a rank-0 VMEM block) to 8-row bands.
# grounded: jax/_src/pallas/mosaic/lowering.py _check_block_mappings (blocks of rank >= 1 only, outside SMEM)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def offset_kernel(x_ref, k_ref, o_ref):
    o_ref[...] = x_ref[...] + k_ref[...]


def launch(x, k):
    return pl.pallas_call(
        offset_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(2,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0)), pl.BlockSpec((), lambda i: ())],  # FAIL
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
