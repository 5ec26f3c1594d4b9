# pallas-lsp example: invalid
# note: The jitted launcher's first call runs in the context; the second, outside it, is traced again and compiled.
# raises: ValueError: Only interpret mode is supported on CPU backend\.
# fix: Extend the interpret-mode `with` block over the calls that read the mode after it
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
    print(halve(x * 2.0)[0, :4])  # error


if __name__ == "__main__":
    main()
