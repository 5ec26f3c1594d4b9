# pallas-lsp example: valid
# note: An SMEM buffer allocated as kernel scratch instead.
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, o_ref, stash):
    stash[...] = x_ref[...]
    o_ref[...] = stash[...] * 2.0


def main():
    kernel = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32),
                          scratch_types=[plgpu.SMEM((128,), jnp.float32)])
    lowered = jax.jit(kernel).trace(jax.ShapeDtypeStruct((128,), jnp.float32)).lower(
        lowering_platforms=("cuda",))
    print(len(lowered.as_text()) > 0)


if __name__ == "__main__":
    main()
