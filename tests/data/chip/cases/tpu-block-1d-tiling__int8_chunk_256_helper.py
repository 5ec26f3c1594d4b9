# case: family=tpu-block-1d-tiling chip=raises cpu=raises interp=clean
# intent: clamp a length-4096 int8 vector in 256-element chunks, the BlockSpec made by a helper (int8 packs 4 per word: the power-of-2 minimum is 512).
# grounded: jax/_src/pallas/mosaic/lowering.py _check_block_mappings (rank 1: min_tiling = 128 * (32 // 8))
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False
N = 4096
CHUNK = 256


def chunk_spec(size):
    return pl.BlockSpec((size,), lambda i: (i,))  # FAIL


def clamp_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def launch(x):
    return pl.pallas_call(
        clamp_kernel,
        out_shape=jax.ShapeDtypeStruct((N,), jnp.int8),
        grid=(N // CHUNK,),
        in_specs=[chunk_spec(CHUNK)],  # FAIL
        out_specs=chunk_spec(CHUNK),  # FAIL
        interpret=INTERPRET,
    )(x)


def inputs():
    return ((jnp.arange(N, dtype=jnp.int32) % 200 - 100).astype(jnp.int8),)


def reference(x):
    return x


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
