# case: family=tpu-block-1d-tiling chip=clean cpu=lowers interp=clean
# intent: the fixed program of f32_chunk_384_jit: 1024-element chunks (a multiple of 8 * 128).
# grounded: fix of PAL641
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


@jax.jit
def launch(x):
    block = 1024
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // block,),
        in_specs=[pl.BlockSpec((block,), lambda i: (i,))],  # DECOY
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
