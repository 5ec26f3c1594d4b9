# pallas-lsp example: invalid
# note: A barrier semaphore is not a regular one; unused, it still fails.
# raises: NotImplementedError: get_global only supports semaphores, got Ref<gmem>\{barrier_semaphore
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(o_ref):
    bar = pl.get_global(plgpu.SemaphoreType.BARRIER)  # error
    o_ref[...] = jnp.zeros_like(o_ref)


def main():
    kernel = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))
    lowered = jax.jit(kernel).trace().lower(lowering_platforms=("cuda",))
    print(len(lowered.as_text()) > 0)


if __name__ == "__main__":
    main()
