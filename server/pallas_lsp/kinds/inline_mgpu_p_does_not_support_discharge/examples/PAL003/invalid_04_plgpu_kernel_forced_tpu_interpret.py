# pallas-lsp example: invalid
# note: A plgpu.kernel forced into TPU interpret mode fails on GMEM first; forced into GPU interpret mode with inline_mgpu='ignore' it runs.
# raises: KeyError: gmem
# fix: Interpret it as a Mosaic GPU kernel: plgpu.force_gpu_interpret_mode(plgpu.InterpretGPUParams(inline_mgpu="ignore")) (the inline_mgpu call is skipped)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def body(x_ref, o_ref):
    @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
    def fence(ctx, ref):
        del ctx, ref

    o_ref[...] = x_ref[...] - 1.0
    fence(o_ref)  # error


def main():
    x = jnp.zeros((128,), jnp.float32)
    with pltpu.force_tpu_interpret_mode():
        out = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    print(out)


if __name__ == "__main__":
    main()
