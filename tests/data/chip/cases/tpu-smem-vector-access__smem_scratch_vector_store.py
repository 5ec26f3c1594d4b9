# case: family=tpu-smem-vector-access chip=raises cpu=raises interp=clean
# intent: keep per-column sums of a (8, 128) f32 tile in an SMEM scratch of shape (128,) with a whole-ref vector store, then read one back.
# grounded: jax/_src/pallas/mosaic/lowering.py _masked_swap_lowering_rule ("Can only store scalars to SMEM")
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def colsum_kernel(x_ref, o_ref, sums_ref):
    sums_ref[...] = jnp.sum(x_ref[...], axis=0)  # FAIL
    o_ref[...] = x_ref[...] + sums_ref[0]


def launch(x):
    return pl.pallas_call(
        colsum_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        scratch_shapes=[pltpu.SMEM((128,), jnp.float32)],  # FAIL
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 1024.0,)


def reference(x):
    return x + x[:, 0].sum()


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
