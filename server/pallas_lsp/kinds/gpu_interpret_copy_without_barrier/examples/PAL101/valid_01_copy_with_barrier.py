# pallas-lsp example: valid
# note: The same helper given a barrier, waited on before the SMEM buffer is read.
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def stage(src, dst, bar):
    plgpu.copy_gmem_to_smem(src, dst, bar)
    plgpu.barrier_wait(bar)


def body(a_gmem, out_gmem, a_smem, bar):
    stage(a_gmem, a_smem, bar)
    a_smem[...] = a_smem[...] + 3.0
    plgpu.commit_smem()
    plgpu.copy_smem_to_gmem(a_smem, out_gmem)
    plgpu.wait_smem_to_gmem(0)


def main():
    a = jnp.arange(256, dtype=jnp.float32)
    add3 = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(a.shape, a.dtype),
                        scratch_types=[plgpu.SMEM((256,), jnp.float32), plgpu.Barrier()],
                        interpret=plgpu.InterpretGPUParams())
    print(add3(a)[:3])


if __name__ == "__main__":
    main()
