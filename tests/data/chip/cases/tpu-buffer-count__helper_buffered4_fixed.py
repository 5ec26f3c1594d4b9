# case: family=tpu-buffer-count chip=clean cpu=lowers interp=clean
# intent: the fixed program of helper_buffered4: pl.Buffered(2), double buffering (PAL643's fix).
# grounded: jax/_src/pallas/mosaic/lowering.py lower_jaxpr_into_pipelined_module
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def banded(rows):
    return pl.BlockSpec((rows, 128), lambda i: (i, 0), pipeline_mode=pl.Buffered(2))  # DECOY


def shift_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 3


def launch(x):
    return pl.pallas_call(
        shift_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 16,),
        in_specs=[banded(16)],
        out_specs=pl.BlockSpec((16, 128), lambda i: (i, 0)),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(64 * 128, dtype=jnp.int32).reshape(64, 128),)


def reference(x):
    return x + 3


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
