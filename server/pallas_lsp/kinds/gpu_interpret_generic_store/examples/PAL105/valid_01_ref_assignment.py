# pallas-lsp example: valid
# note: The helper writes with ref[...] = value, which the GPU interpreter runs.
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def write(ref, value):
    ref[...] = value


def body(x_ref, o_ref):
    write(o_ref, x_ref[...] * 0.5)


def main():
    x = jnp.ones((128,), jnp.float32)
    plgpu.set_gpu_interpret_mode(plgpu.InterpretGPUParams())
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))
    print(run(x)[:2])


if __name__ == "__main__":
    main()
