# pallas-lsp example: invalid
# note: A 0-d int32 offset given an SMEM BlockSpec under a 2-step grid: it lowers on a CPU, but the chip has no scalar window. The chip's label: tests/data/chip/labels.json, cases/tpu-block-rank0__int32_offset_inline_fixed.py.
# raises: JaxRuntimeError: Scalar windows not implemented
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
        grid=(2,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0)), pl.BlockSpec(memory_space=pltpu.SMEM)],  # error
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    )(x, k)


def inputs():
    return (jnp.arange(16 * 128, dtype=jnp.int32).reshape(16, 128), jnp.full((), 7, jnp.int32))


def reference(x, k):
    return x + k


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
