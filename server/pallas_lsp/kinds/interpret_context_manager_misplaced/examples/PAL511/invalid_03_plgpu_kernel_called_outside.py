# pallas-lsp example: invalid
# note: plgpu.kernel reads the setting when it is called: built inside the context, called outside it.
# raises: ValueError: Only interpret mode is supported on CPU backend\.
# fix: Extend the interpret-mode `with` block over the calls that read the mode after it
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def main():
    with plgpu.force_gpu_interpret_mode():  # error
        twice = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))
    print(twice(jnp.ones((128,), jnp.float32))[:4])


if __name__ == "__main__":
    main()
