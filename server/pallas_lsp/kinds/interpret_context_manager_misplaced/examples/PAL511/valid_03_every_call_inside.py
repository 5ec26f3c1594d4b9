# pallas-lsp example: valid
# note: Both calls of the jitted launcher run inside the context.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def halve_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.5


@jax.jit
def halve(x):
    return pl.pallas_call(halve_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def main():
    x = jnp.ones((8, 128), jnp.float32)
    with pltpu.force_tpu_interpret_mode():
        print(halve(x)[0, :4])
        print(halve(x * 2.0)[0, :4])


if __name__ == "__main__":
    main()
