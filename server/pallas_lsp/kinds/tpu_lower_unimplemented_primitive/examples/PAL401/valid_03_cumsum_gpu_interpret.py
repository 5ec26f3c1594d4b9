# pallas-lsp example: valid
# note: The GPU interpreter runs a cumsum in the kernel (only the CUDA lowering lacks it).
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_ref, o_ref):
    o_ref[...] = jnp.cumsum(x_ref[...])


def main():
    x = jnp.ones((128,), jnp.float32)
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=plgpu.InterpretGPUParams())
    print(run(x)[:3])


if __name__ == "__main__":
    main()
