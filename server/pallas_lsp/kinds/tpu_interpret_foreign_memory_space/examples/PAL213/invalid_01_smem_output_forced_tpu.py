# pallas-lsp example: invalid
# note: Mosaic GPU SMEM on the output BlockSpec, under a forced TPU interpret mode.
# raises: KeyError: <MemorySpace.SMEM: 'smem'>
# fix: Drop the Mosaic GPU memory space (the TPU interpreter picks one)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def main():
    x = jnp.ones((8, 128), jnp.float32)
    with pltpu.force_tpu_interpret_mode():
        out = pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                             out_specs=pl.BlockSpec(memory_space=plgpu.SMEM))(x)  # error
    print(out[0, :2])


if __name__ == "__main__":
    main()
