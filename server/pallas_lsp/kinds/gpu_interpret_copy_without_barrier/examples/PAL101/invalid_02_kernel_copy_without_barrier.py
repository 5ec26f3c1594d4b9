# pallas-lsp example: invalid
# note: The kernel itself copies without a barrier (the cp.async form), GPU interpret params at the launch.
# raises: NotImplementedError: Interpret mode does not support copy_gmem_to_smem without a barrier
# fix: Pass the copy a new barrier (plgpu.Barrier() kernel scratch) and wait on it
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_gmem, o_gmem, x_smem):
    plgpu.copy_gmem_to_smem(x_gmem, x_smem)  # error
    x_smem[...] = x_smem[...] * 2.0
    plgpu.commit_smem()
    plgpu.copy_smem_to_gmem(x_smem, o_gmem)
    plgpu.wait_smem_to_gmem(0)


def main():
    x = jnp.arange(128, dtype=jnp.float32)
    double = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          scratch_types=[plgpu.SMEM((128,), jnp.float32)],
                          interpret=plgpu.InterpretGPUParams())
    print(double(x)[:3])


if __name__ == "__main__":
    main()
