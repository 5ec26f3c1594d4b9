# pallas-lsp example: valid
# note: With a thread_name, the GPU interpreter (InterpretGPUParams) runs it.
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 7.0


def main():
    x = jnp.zeros((128,), jnp.float32)
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
                       num_threads=1, thread_name="warpgroup", interpret=plgpu.InterpretGPUParams())
    print(run(x)[:2])


if __name__ == "__main__":
    main()
