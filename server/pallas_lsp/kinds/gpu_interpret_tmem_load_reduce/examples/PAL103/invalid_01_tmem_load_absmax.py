# pallas-lsp example: invalid
# note: A TMEM load fused with an absmax reduction, the reduction named by a module constant.
# raises: NotImplementedError: Interpret mode does not support load reduce
# fix: Load without reduce= and reduce the last axis with jnp.max of jnp.abs
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu

REDUCTION = "absmax"


def body(x_ref, y_ref, peak_ref, acc):
    plgpu.async_store_tmem(acc, x_ref[...] - 1.0)
    plgpu.commit_tmem()
    y, peak = plgpu.async_load_tmem(acc, reduce=REDUCTION)  # error
    plgpu.wait_load_tmem()
    y_ref[...] = y
    peak_ref[...] = peak


def main():
    x = jnp.zeros((128, 64), jnp.float32)
    run = plgpu.kernel(body, out_type=(jax.ShapeDtypeStruct(x.shape, x.dtype),
                                       jax.ShapeDtypeStruct((128,), x.dtype)),
                       scratch_types=[plgpu.TMEM((128, 64), jnp.float32)],
                       interpret=plgpu.InterpretGPUParams())
    print(run(x)[1][:2])


if __name__ == "__main__":
    main()
