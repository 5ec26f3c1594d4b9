# pallas-lsp example: invalid
# note: TPU interpret params: the TPU interpreter has no CPU lowering for inline_mgpu; the GPU interpreter skips the call.
# raises: NotImplementedError: MLIR translation rule for primitive 'inline_mgpu' not found
# fix: Interpret it as a Mosaic GPU kernel: plgpu.InterpretGPUParams(inline_mgpu="ignore") (the inline_mgpu call is skipped)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
    def fence(ctx, ref):
        del ctx, ref

    o_ref[...] = x_ref[...] - 1.0
    fence(o_ref)  # error


def main():
    x = jnp.zeros((128,), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         interpret=pltpu.InterpretParams())(x)
    print(out)


if __name__ == "__main__":
    main()
