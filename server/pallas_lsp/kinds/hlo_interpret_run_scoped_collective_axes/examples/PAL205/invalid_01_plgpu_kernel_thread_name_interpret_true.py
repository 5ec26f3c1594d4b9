# pallas-lsp example: invalid
# note: plgpu.kernel with a thread_name, debugged with interpret=True: the run_scoped it adds has collective axes.
# raises: NotImplementedError: run_scoped interpret rule does not support collective axes
# fix: Interpret with plgpu.InterpretGPUParams() (it simulates threads)
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 7.0


def main():
    x = jnp.zeros((128,), jnp.float32)
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
                       num_threads=1, thread_name="warpgroup",  # error
                       interpret=True)
    print(run(x)[:2])


if __name__ == "__main__":
    main()
