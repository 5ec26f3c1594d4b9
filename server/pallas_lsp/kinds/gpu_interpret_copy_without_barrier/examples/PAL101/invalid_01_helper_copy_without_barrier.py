# pallas-lsp example: invalid
# note: A helper one call below the kernel copies GMEM to SMEM without a barrier; GPU interpret params.
# raises: NotImplementedError: Interpret mode does not support copy_gmem_to_smem without a barrier
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def stage(src, dst):
    plgpu.copy_gmem_to_smem(src, dst, None)  # error


def body(a_gmem, out_gmem, a_smem):
    stage(a_gmem, a_smem)
    a_smem[...] = a_smem[...] + 3.0
    plgpu.commit_smem()
    plgpu.copy_smem_to_gmem(a_smem, out_gmem)
    plgpu.wait_smem_to_gmem(0)


def main():
    a = jnp.arange(256, dtype=jnp.float32)
    add3 = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(a.shape, a.dtype),
                        scratch_types=[plgpu.SMEM((256,), jnp.float32)],
                        interpret=plgpu.InterpretGPUParams())
    print(add3(a)[:3])


if __name__ == "__main__":
    main()
