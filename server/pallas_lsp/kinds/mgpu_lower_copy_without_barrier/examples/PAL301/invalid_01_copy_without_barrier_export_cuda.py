# pallas-lsp example: invalid
# note: A Mosaic GPU kernel copying without a barrier, exported for CUDA (Hopper assumed with no GPU present).
# raises: ValueError: copy_gmem_to_smem without a barrier is only supported on pre-Hopper GPUs
# fix: Pass the copy a new barrier (plgpu.Barrier() kernel scratch) and wait on it
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(a_gmem, out_gmem, buf):
    plgpu.copy_gmem_to_smem(a_gmem, buf)  # error
    plgpu.commit_smem()
    plgpu.copy_smem_to_gmem(buf, out_gmem)
    plgpu.wait_smem_to_gmem(0)


def forward(a):
    spec = jax.ShapeDtypeStruct(a.shape, a.dtype)
    run = plgpu.kernel(body, out_type=spec, scratch_types=[plgpu.SMEM((256,), jnp.float32)])
    return run(a) * 2.0


def main():
    spec = jax.ShapeDtypeStruct((256,), jnp.float32)
    exported = jax.export.export(jax.jit(forward), platforms=["cuda"])(spec)
    print(exported.platforms)


if __name__ == "__main__":
    main()
