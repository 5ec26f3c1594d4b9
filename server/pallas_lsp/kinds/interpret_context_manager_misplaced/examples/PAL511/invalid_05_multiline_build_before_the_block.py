# pallas-lsp example: invalid
# note: pl.pallas_call, built at module level over several lines, is called under the GPU interpreter's context manager in a function; it read its mode when built.
# raises: ValueError: Only interpret mode is supported on CPU backend\.
# fix: Build `double` inside the interpret-mode `with` block (pl.pallas_call and pl.kernel read the mode when built)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def double_body(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


double = pl.pallas_call(
    double_body,
    out_shape=jax.ShapeDtypeStruct((128,), jnp.float32),
)


def main():
    x = jnp.ones((128,), jnp.float32)
    with plgpu.force_gpu_interpret_mode():  # error
        # (the first call)
        y = double(x)
        print(double(y)[:4])


if __name__ == "__main__":
    main()
