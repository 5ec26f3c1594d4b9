# pallas-lsp example: valid
# note: pl.kernel on a Mosaic GPU mesh forced into GPU interpret mode with inline_mgpu='ignore': the call returns nothing and is skipped.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

DEBUG_PARAMS = plgpu.InterpretGPUParams(inline_mgpu="ignore")


def make_kernel():
    @plgpu.inline_mgpu(arg_types=(plgpu.RefType(), plgpu.RefType()))
    def touch(ctx, src, dst):
        del ctx, src, dst

    def body(x_ref, o_ref):
        o_ref[...] = x_ref[...] + 2.0
        touch(x_ref, o_ref)

    return body


def main():
    x = jnp.ones((128,), jnp.float32)
    with plgpu.force_gpu_interpret_mode(DEBUG_PARAMS):
        run = pl.kernel(make_kernel(), out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), mesh=plgpu.Mesh())
        print(run(x)[:2])


if __name__ == "__main__":
    main()
