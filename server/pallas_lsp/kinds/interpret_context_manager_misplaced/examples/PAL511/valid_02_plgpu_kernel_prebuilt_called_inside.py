# pallas-lsp example: valid
# note: plgpu.kernel built before the context and called inside it: it reads the setting at the call.
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


twice = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))


def main():
    with plgpu.force_gpu_interpret_mode():
        print(twice(jnp.ones((128,), jnp.float32))[:4])


if __name__ == "__main__":
    main()
