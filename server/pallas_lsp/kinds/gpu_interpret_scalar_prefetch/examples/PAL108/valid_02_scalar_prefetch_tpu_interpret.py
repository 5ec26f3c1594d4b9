# pallas-lsp example: valid
# note: The same scalar-prefetch grid spec in TPU interpret mode.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(scale_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3.0


def main():
    x = jnp.ones((8, 128), jnp.float32)
    scale = jnp.array([3], jnp.int32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         grid_spec=pltpu.PrefetchScalarGridSpec(1, grid=(1,)),
                         interpret=pltpu.InterpretParams())(scale, x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
