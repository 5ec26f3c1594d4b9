# pallas-lsp example: invalid
# raises: NotImplementedError: get_global only supports semaphores, got Ref<smem>
# fix: Allocate it as kernel scratch (scratch_types=[plgpu.SMEM((128,), jnp.float32)]); note that scratch lives for one kernel invocation, a global persists across invocations
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, o_ref):
    stash = pl.get_global(plgpu.SMEM((128,), jnp.float32))  # error
    stash[...] = x_ref[...]
    o_ref[...] = stash[...] * 2.0


def main():
    kernel = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))
    lowered = jax.jit(kernel).trace(jax.ShapeDtypeStruct((128,), jnp.float32)).lower(
        lowering_platforms=("cuda",))
    print(len(lowered.as_text()) > 0)


if __name__ == "__main__":
    main()
