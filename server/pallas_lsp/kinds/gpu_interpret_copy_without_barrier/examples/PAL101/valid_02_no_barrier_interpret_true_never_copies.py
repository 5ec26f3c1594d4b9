# pallas-lsp example: valid
# note: A copy without a barrier under a branch the kernel never traces (USE_CP_ASYNC is False).
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu

USE_CP_ASYNC = False


def body(a_gmem, out_gmem, a_smem, bar):
    if USE_CP_ASYNC:
        plgpu.copy_gmem_to_smem(a_gmem, a_smem)
    else:
        plgpu.copy_gmem_to_smem(a_gmem, a_smem, bar)
        plgpu.barrier_wait(bar)
    plgpu.commit_smem()
    plgpu.copy_smem_to_gmem(a_smem, out_gmem)
    plgpu.wait_smem_to_gmem(0)


def main():
    a = jnp.arange(128, dtype=jnp.float32)
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(a.shape, a.dtype),
                       scratch_types=[plgpu.SMEM((128,), jnp.float32), plgpu.Barrier()],
                       interpret=plgpu.InterpretGPUParams())
    print(run(a)[:3])


if __name__ == "__main__":
    main()
