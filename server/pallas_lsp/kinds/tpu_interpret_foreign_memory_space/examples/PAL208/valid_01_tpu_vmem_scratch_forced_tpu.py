# pallas-lsp example: valid
# note: TPU VMEM scratch in TPU interpret mode.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

STAGING = [pltpu.VMEM((8, 128), jnp.float32)]


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
