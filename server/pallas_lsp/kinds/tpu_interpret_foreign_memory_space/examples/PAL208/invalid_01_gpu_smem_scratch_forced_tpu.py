# pallas-lsp example: invalid
# note: Mosaic GPU SMEM scratch in a pallas_call built inside force_tpu_interpret_mode.
# raises: KeyError: MemorySpace\.SMEM
# fix: Allocate it in TPU memory (pltpu.VMEM)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu

STAGING = [plgpu.SMEM((8, 128), jnp.float32)]  # error


def kernel(x_ref, o_ref, tmp):
    tmp[...] = x_ref[...] * 4.0
    o_ref[...] = tmp[...]


def main():
    x = jnp.ones((8, 128), jnp.float32)
    with pltpu.force_tpu_interpret_mode():
        call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), scratch_shapes=STAGING)
        print(call(x)[0, :2])


if __name__ == "__main__":
    main()
