# pallas-lsp example: invalid
# note: A TPU kernel with pltpu.SMEM scratch launched under GPU interpret params.
# raises: KeyError: SMEM
# fix: Allocate it in Mosaic GPU shared memory (plgpu.SMEM)
# fix: Interpret it as a TPU kernel (interpret=pltpu.InterpretParams())
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, acc):
    acc[0] = 5.0
    o_ref[...] = x_ref[...] + acc[0]


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         scratch_shapes=[pltpu.SMEM((1,), jnp.float32)],  # error
                         interpret=plgpu.InterpretGPUParams())(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
