from jax.experimental.pallas import mosaic_gpu as plgpu


@plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
def fence(ctx, ref):
    del ctx, ref


@plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
def unused_fence(ctx, ref):
    del ctx, ref
