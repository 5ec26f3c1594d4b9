# pallas-lsp example: invalid
# note: TPU interpret mode set for the whole program, the inline_mgpu call one helper below the kernel: no CPU lowering for it; the GPU interpreter set instead skips the call.
# raises: NotImplementedError: MLIR translation rule for primitive 'inline_mgpu' not found
# fix: Interpret it as a Mosaic GPU kernel: plgpu.set_gpu_interpret_mode(plgpu.InterpretGPUParams(inline_mgpu="ignore")) (the inline_mgpu call is skipped)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


@plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
def publish(ctx, ref):
    del ctx, ref


def store_and_publish(o_ref, value):
    o_ref[...] = value
    publish(o_ref)  # error


def halve(x_ref, o_ref):
    store_and_publish(o_ref, x_ref[...] * 0.5)


def main():
    pltpu.set_tpu_interpret_mode(pltpu.InterpretParams(dma_execution_mode="eager"))
    x = jnp.full((256,), 4.0, jnp.float32)
    y = pl.pallas_call(halve, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    print(y[:2])


if __name__ == "__main__":
    main()
