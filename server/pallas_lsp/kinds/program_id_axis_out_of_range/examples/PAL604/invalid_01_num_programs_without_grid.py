# pallas-lsp example: invalid
# note: A launch without a grid has grid (): there is no axis 0 to count.
# raises: ValueError: Axis 0 is out of bounds for grid \(\)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def mean_kernel(x_ref, o_ref):
    steps = pl.num_programs(0)  # error
    o_ref[...] = x_ref[...] / steps


def mean(x):
    return pl.pallas_call(mean_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


if __name__ == "__main__":
    print(mean(jnp.ones((8, 128), jnp.float32))[0, :2])
