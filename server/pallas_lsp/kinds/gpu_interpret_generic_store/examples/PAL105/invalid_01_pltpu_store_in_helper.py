# pallas-lsp example: invalid
# note: pltpu.store in a helper of a plgpu.kernel body, GPU interpret mode set by set_gpu_interpret_mode.
# raises: NotImplementedError: swap_p is not supported on GPU yet
# fix: Write it with ref[...] = value (a Ref store, which the GPU interpreter runs)
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def write(ref, value):
    pltpu.store(ref, value)  # error


def body(x_ref, o_ref):
    write(o_ref, x_ref[...] * 0.5)


def main():
    x = jnp.ones((128,), jnp.float32)
    plgpu.set_gpu_interpret_mode(plgpu.InterpretGPUParams())
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))
    print(run(x)[:2])


if __name__ == "__main__":
    main()
