# pallas-lsp example: valid
# note: GPU interpret params with inline_mgpu='ignore' skip calls that return nothing.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref):
    @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
    def fence(ctx, ref):
        del ctx, ref

    o_ref[...] = x_ref[...] - 1.0
    fence(o_ref)


def main():
    x = jnp.zeros((128,), jnp.float32)
    params = plgpu.InterpretGPUParams(inline_mgpu="ignore")
    print(pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=params)(x))


if __name__ == "__main__":
    main()
