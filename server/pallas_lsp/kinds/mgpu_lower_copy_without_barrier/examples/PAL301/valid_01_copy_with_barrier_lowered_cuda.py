# pallas-lsp example: valid
# note: With a barrier the copy lowers for CUDA.
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(a_gmem, out_gmem, buf, bar):
    plgpu.copy_gmem_to_smem(a_gmem, buf, bar)
    plgpu.barrier_wait(bar)
    plgpu.commit_smem()
    plgpu.copy_smem_to_gmem(buf, out_gmem)
    plgpu.wait_smem_to_gmem(0)


def main():
    spec = jax.ShapeDtypeStruct((256,), jnp.float32)
    run = plgpu.kernel(body, out_type=spec, scratch_types=[plgpu.SMEM((256,), jnp.float32), plgpu.Barrier()])
    lowered = jax.jit(run).trace(spec).lower(lowering_platforms=("cuda",))
    print(len(lowered.as_text()) > 0)


if __name__ == "__main__":
    main()
