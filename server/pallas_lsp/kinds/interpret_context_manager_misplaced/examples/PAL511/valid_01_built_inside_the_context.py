# pallas-lsp example: valid
# note: The launch is built inside the context, where pl.pallas_call reads its setting.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def square_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * x_ref[...]


def main():
    with pltpu.force_tpu_interpret_mode():
        square = pl.pallas_call(square_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))
        print(square(jnp.ones((8, 128), jnp.float32))[0, :4])


if __name__ == "__main__":
    main()
