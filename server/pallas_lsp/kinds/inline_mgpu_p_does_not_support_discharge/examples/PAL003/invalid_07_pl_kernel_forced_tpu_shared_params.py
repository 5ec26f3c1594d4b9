# pallas-lsp example: invalid
# note: pl.kernel on a Mosaic GPU mesh inside force_tpu_interpret_mode, handed params built once at module level: GMEM fails first; the GPU interpreter forced instead skips the call.
# raises: KeyError: gmem
# fix: Interpret it as a Mosaic GPU kernel: plgpu.force_gpu_interpret_mode(plgpu.InterpretGPUParams(inline_mgpu="ignore")) (the inline_mgpu call is skipped)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu

DEBUG_PARAMS = pltpu.InterpretParams(detect_races=True)


def make_kernel():
    @plgpu.inline_mgpu(arg_types=(plgpu.RefType(), plgpu.RefType()))
    def touch(ctx, src, dst):
        del ctx, src, dst

    def body(x_ref, o_ref):
        o_ref[...] = x_ref[...] + 2.0
        touch(x_ref, o_ref)  # error

    return body


def main():
    x = jnp.ones((128,), jnp.float32)
    with pltpu.force_tpu_interpret_mode(DEBUG_PARAMS):
        run = pl.kernel(make_kernel(), out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), mesh=plgpu.Mesh())
        print(run(x)[:2])


if __name__ == "__main__":
    main()
