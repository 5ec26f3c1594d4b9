# case: family=tpu-block-1d-tiling chip=clean cpu=lowers interp=clean
# intent: the fixed program of int8_chunk_256_helper: 512-element chunks, the int8 minimum power of 2.
# grounded: fix of PAL641 (a power-of-2 block of at least 128 * (32 // 8))
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False
N = 4096
CHUNK = 512


def chunk_spec(size):
    return pl.BlockSpec((size,), lambda i: (i,))  # DECOY


def clamp_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def launch(x):
    return pl.pallas_call(
        clamp_kernel,
        out_shape=jax.ShapeDtypeStruct((N,), jnp.int8),
        grid=(N // CHUNK,),
        in_specs=[chunk_spec(CHUNK)],  # DECOY
        out_specs=chunk_spec(CHUNK),  # DECOY
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
