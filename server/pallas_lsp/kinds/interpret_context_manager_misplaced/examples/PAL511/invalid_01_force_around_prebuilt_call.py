# pallas-lsp example: invalid
# note: The context wraps only the call; pl.pallas_call read its interpret setting when it was built, above.
# raises: ValueError: Only interpret mode is supported on CPU backend\.
# fix: Build `square` inside the interpret-mode `with` block (pl.pallas_call and pl.kernel read the mode when built)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def square_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * x_ref[...]


square = pl.pallas_call(square_kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))


def main():
    with pltpu.force_tpu_interpret_mode():  # error
        print(square(jnp.ones((8, 128), jnp.float32))[0, :4])


if __name__ == "__main__":
    main()
