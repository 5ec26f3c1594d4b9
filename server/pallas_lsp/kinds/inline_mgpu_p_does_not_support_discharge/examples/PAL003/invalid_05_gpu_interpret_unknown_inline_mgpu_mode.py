# pallas-lsp example: invalid
# note: An inline_mgpu mode the GPU interpreter does not know; the params are fine until a call reaches it.
# raises: ValueError: GPU interpret mode does not support `inline_mgpu` param with value skip\.
# fix: Add inline_mgpu="ignore" to the GPU interpret params (the call is skipped while interpreting)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

DEBUG = plgpu.InterpretGPUParams(inline_mgpu="skip")  # error


@plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
def touch(ctx, ref):
    del ctx, ref


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3.0
    touch(o_ref)


def main():
    x = jnp.ones((128,), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=DEBUG)(x)
    print(out[:4])


if __name__ == "__main__":
    main()
