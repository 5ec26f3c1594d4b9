# pallas-lsp example: valid
# note: The same GridSpec with a Python int bound.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def exp_kernel(x_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...])


def total(x):
    spec = pl.GridSpec(grid=(1,))
    y = pl.pallas_call(exp_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid_spec=spec,
                       interpret=pltpu.InterpretParams())(x)
    return y.sum()


def main():
    x = jnp.zeros((8, 128), jnp.float32)
    print(jax.jvp(total, (x,), (jnp.ones_like(x),))[1])


if __name__ == "__main__":
    main()
