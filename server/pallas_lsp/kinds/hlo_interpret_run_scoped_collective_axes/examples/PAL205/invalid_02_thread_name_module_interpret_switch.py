# pallas-lsp example: invalid
# note: A module-level debugging switch set to True is the launch's interpret setting; the fix keeps it deciding.
# raises: NotImplementedError: run_scoped interpret rule does not support collective axes
# fix: Interpret with plgpu.InterpretGPUParams() (it simulates threads)
import functools

import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as mgpu

INTERPRET = True


@functools.partial(
    mgpu.kernel,
    out_type=jax.ShapeDtypeStruct((256,), jnp.float32),
    num_threads=2,
    thread_name="wg",  # error
    interpret=INTERPRET,
)
def scale(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3.0


if __name__ == "__main__":
    print(scale(jnp.ones((256,), jnp.float32))[:4])
