# pallas-lsp example: valid
# note: GMEM on an input BlockSpec is the GPU interpreter's own memory space.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

GLOBAL = plgpu.GMEM


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         in_specs=[pl.BlockSpec(memory_space=GLOBAL)],
                         interpret=plgpu.InterpretGPUParams())(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
