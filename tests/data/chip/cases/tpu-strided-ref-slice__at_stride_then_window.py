# case: family=tpu-strided-ref-slice chip=raises cpu=raises interp=clean
# intent: take a strided view of the odd rows of a (16, 256) f32 tile (x_ref.at[pl.ds(1, 8, stride=2)]) and read its first 4 rows.
# grounded: jax/_src/pallas/mosaic/lowering.py _slice_memref ("Strided slices of references are unsupported.")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def odd_rows_kernel(x_ref, o_ref):
    odd = x_ref.at[pl.ds(1, 8, stride=2)]  # FAIL
    o_ref[...] = odd[0:4, :] - 1.0


def launch(x):
    return pl.pallas_call(
        odd_rows_kernel,
        out_shape=jax.ShapeDtypeStruct((4, 256), jnp.float32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(16 * 256, dtype=jnp.float32).reshape(16, 256),)


def reference(x):
    return x[1:9:2] - 1.0


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
