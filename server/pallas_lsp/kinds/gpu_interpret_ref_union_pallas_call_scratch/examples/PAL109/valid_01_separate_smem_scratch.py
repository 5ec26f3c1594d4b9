# pallas-lsp example: valid
# note: Two separate SMEM scratch buffers instead of a RefUnion.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref, first, second):
    first[...] = x_ref[...] + 2.0
    o_ref[...] = first[...]


def main():
    x = jnp.ones((64,), jnp.float32)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        scratch_shapes=[plgpu.SMEM((64,), jnp.float32), plgpu.SMEM((64,), jnp.float32)],
        interpret=plgpu.InterpretGPUParams(),
    )(x)
    print(out[:2])


if __name__ == "__main__":
    main()
