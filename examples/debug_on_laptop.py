"""A kernel author flips interpret=True to debug on a laptop. pallas-lsp says what will fail."""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def grid_barrier():
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
    pl.semaphore_signal(sem)
    pl.semaphore_wait(sem)


def add_one_kernel(x_ref, o_ref):
    @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
    def fence(ctx, ref):
        del ctx, ref

    grid_barrier()
    o_ref[...] = x_ref[...] + 1.0
    fence(o_ref)


@jax.jit
def add_one(x, num_blocks):
    return pl.pallas_call(
        add_one_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(num_blocks,),
        interpret=plgpu.InterpretGPUParams(),
    )(x)


if __name__ == "__main__":
    print(add_one(jnp.zeros((128,), jnp.float32), 1))
