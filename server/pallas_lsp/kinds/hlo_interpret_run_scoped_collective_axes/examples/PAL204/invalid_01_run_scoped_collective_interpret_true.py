# pallas-lsp example: invalid
# note: An explicit run_scoped over a collective axis under interpret=True (the generic interpreter).
# raises: NotImplementedError: run_scoped interpret rule does not support collective axes
# fix: Drop `collective_axes=` while interpreting
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    def scope(tmp):
        tmp[...] = x_ref[...] * 5.0
        o_ref[...] = tmp[...]

    pl.run_scoped(scope, pltpu.VMEM((8, 128), jnp.float32), collective_axes="core")  # error


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
