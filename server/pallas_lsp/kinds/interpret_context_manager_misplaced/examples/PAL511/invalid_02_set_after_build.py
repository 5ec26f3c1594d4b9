# pallas-lsp example: invalid
# note: set_gpu_interpret_mode is called after the launch was built at module level.
# raises: ValueError: Only interpret mode is supported on CPU backend\.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def inc_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


inc = pl.pallas_call(inc_kernel, out_shape=jax.ShapeDtypeStruct((128,), jnp.float32))


def main():
    plgpu.set_gpu_interpret_mode()  # error
    print(inc(jnp.zeros((128,), jnp.float32))[:4])


if __name__ == "__main__":
    main()
