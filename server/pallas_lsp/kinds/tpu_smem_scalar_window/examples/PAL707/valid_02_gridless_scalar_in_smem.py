# pallas-lsp example: valid
# note: The 0-d offset in SMEM in a grid-less launch: it compiled on the chip (tests/data/chip/labels.json, cases/tpu-block-rank0__probe_0d_smem_gridless.py).
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def offset_kernel(x_ref, k_ref, o_ref):
    o_ref[...] = x_ref[...] + k_ref[...]


def launch(x, k):
    return pl.pallas_call(
        offset_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM), pl.BlockSpec(memory_space=pltpu.SMEM)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
    )(x, k)


def inputs():
    return (jnp.arange(16 * 128, dtype=jnp.int32).reshape(16, 128), jnp.full((), 7, jnp.int32))


def reference(x, k):
    return x + k


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
