# pallas-lsp example: valid
# note: An unmasked pltpu.load (mask=None) and jnp.where, under TPU interpret params.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    keep = jnp.arange(128)[None, :] < 100
    o_ref[...] = jnp.where(keep, pltpu.load(x_ref, mask=None), 0.0)


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         interpret=pltpu.InterpretParams())(x)
    print(out[0, 98:102])


if __name__ == "__main__":
    main()
