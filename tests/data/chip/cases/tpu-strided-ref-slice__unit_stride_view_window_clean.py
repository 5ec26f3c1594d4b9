# case: family=tpu-strided-ref-slice chip=clean cpu=lowers interp=clean
# intent: the clean twin of at_stride_then_window: a unit-stride view x_ref.at[pl.ds(8, 8)] of a (16, 256) f32 tile, then its first 4 rows.
# grounded: _slice_memref refuses only strides other than 1; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def low_rows_kernel(x_ref, o_ref):
    low = x_ref.at[pl.ds(8, 8)]  # DECOY
    o_ref[...] = low[0:4, :] - 1.0


def launch(x):
    return pl.pallas_call(
        low_rows_kernel,
        out_shape=jax.ShapeDtypeStruct((4, 256), jnp.float32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(16 * 256, dtype=jnp.float32).reshape(16, 256),)


def reference(x):
    return x[8:12] - 1.0


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
