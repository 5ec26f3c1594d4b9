# pallas-lsp example: valid
# note: Code Python never runs is never traced.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def unused_helper():
    return pl.get_global(plgpu.SemaphoreType.REGULAR)


def kernel(x_ref, o_ref):
    if False:
        unused_helper()
    o_ref[...] = x_ref[...] * 2.0


def main():
    x = jnp.zeros((8,), jnp.float32)
    print(pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x))


if __name__ == "__main__":
    main()
