# pallas-lsp example: valid
# note: Mosaic GPU SMEM scratch under GPU interpret params.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref, tmp):
    tmp[...] = x_ref[...] + 5.0
    o_ref[...] = tmp[...]


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         scratch_shapes=[plgpu.SMEM((8, 128), jnp.float32)],
                         interpret=plgpu.InterpretGPUParams())(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
