# case: family=tpu-block-1d-tiling chip=raises cpu=raises interp=clean
# intent: scale a length-3072 float32 vector in 384-element chunks under jax.jit (384: not a power of 2, not a multiple of 1024, not the length).
# grounded: jax/_src/pallas/mosaic/lowering.py _check_block_mappings (rank-1 blocks)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


@jax.jit
def launch(x):
    block = 384
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // block,),
        in_specs=[pl.BlockSpec((block,), lambda i: (i,))],  # FAIL
        out_specs=pl.BlockSpec((block,), lambda i: (i,)),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(3072, dtype=jnp.float32),)


def reference(x):
    return x * 0.5


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
