# pallas-lsp example: valid
# note: pltpu.load without a mask in TPU interpret mode, where the generic load is supported.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    o_ref[...] = pltpu.load(x_ref) + 1.0


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         interpret=pltpu.InterpretParams())(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
