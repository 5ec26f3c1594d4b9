# pallas-lsp example: valid
# note: num_scalar_prefetch=0: no scalar operands, so the GPU interpreter runs it.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3.0


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=0, grid=(1,)),
                         interpret=plgpu.InterpretGPUParams())(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
