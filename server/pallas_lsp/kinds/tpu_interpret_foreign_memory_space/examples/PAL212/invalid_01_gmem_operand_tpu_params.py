# pallas-lsp example: invalid
# note: A Mosaic GPU memory space on an input BlockSpec of a kernel run in TPU interpret mode.
# raises: KeyError: <MemorySpace.GMEM: 'gmem'>
# fix: Drop the Mosaic GPU memory space (the TPU interpreter picks one)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu

GLOBAL = plgpu.GMEM


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         in_specs=[pl.BlockSpec(memory_space=GLOBAL)],  # error
                         interpret=pltpu.InterpretParams())(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
