# pallas-lsp example: invalid
# note: A GMEM array: Mosaic GPU cannot allocate one as scratch either (Unsupported memory space: gmem); the fix that lowers is an SMEM buffer.
# raises: NotImplementedError: get_global only supports semaphores, got Ref<gmem>
# fix: Allocate it in shared memory as kernel scratch instead (scratch_types=[plgpu.SMEM((128,), jnp.float32)]): Mosaic GPU cannot allocate a GMEM array; SMEM is private to each block and lives for one kernel invocation
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, o_ref):
    stash = pl.get_global(plgpu.GMEM((128,), jnp.float32))  # error
    stash[...] = x_ref[...]
    o_ref[...] = stash[...] * 2.0


def main():
    kernel = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))
    lowered = jax.jit(kernel).trace(jax.ShapeDtypeStruct((128,), jnp.float32)).lower(
        lowering_platforms=("cuda",))
    print(len(lowered.as_text()) > 0)


if __name__ == "__main__":
    main()
