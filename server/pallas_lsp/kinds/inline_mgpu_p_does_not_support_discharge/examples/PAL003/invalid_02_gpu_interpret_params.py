# pallas-lsp example: invalid
# raises: ValueError: GPU interpret mode does not support `inline_mgpu`
# fix: Add inline_mgpu="ignore" to the GPU interpret params (the call is skipped while interpreting)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref):
    @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
    def fence(ctx, ref):
        del ctx, ref

    o_ref[...] = x_ref[...] - 1.0
    fence(o_ref)  # error


def main():
    x = jnp.zeros((128,), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                         interpret=plgpu.InterpretGPUParams())(x)
    print(out)


if __name__ == "__main__":
    main()
