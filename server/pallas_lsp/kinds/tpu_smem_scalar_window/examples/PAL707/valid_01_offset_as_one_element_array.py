# pallas-lsp example: valid
# note: The offset as a (1,) array in SMEM, read as k_ref[0], under the same grid: it compiled on the chip (tests/data/chip/labels.json, cases/tpu-block-rank0__probe_1elem_smem_grid.py).
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def offset_kernel(x_ref, k_ref, o_ref):
    o_ref[...] = x_ref[...] + k_ref[0]


def launch(x, k):
    return pl.pallas_call(
        offset_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(2,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0)), pl.BlockSpec(memory_space=pltpu.SMEM)],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    )(x, k)


def inputs():
    return (jnp.arange(16 * 128, dtype=jnp.int32).reshape(16, 128), jnp.full((1,), 7, jnp.int32))


def reference(x, k):
    return x + k[0]


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
