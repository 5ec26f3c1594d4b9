# pallas-lsp example: invalid
# note: A TMA reduce-store (reduction_op="add") in GPU interpret mode; it fails in the host callback at run time.
# raises: JaxRuntimeError: reduction_op not supported
# fix: Reduce in SMEM instead: read the destination into a new buffer, reduce there, store plainly (not atomic across blocks)
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_gmem, o_gmem, buf, bar):
    plgpu.copy_gmem_to_smem(x_gmem, buf, bar)
    plgpu.barrier_wait(bar)
    plgpu.commit_smem()
    plgpu.copy_smem_to_gmem(buf, o_gmem, reduction_op="add")  # error
    plgpu.wait_smem_to_gmem(0)


def main():
    x = jnp.ones((128,), jnp.float32)
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
                       scratch_types=[plgpu.SMEM((128,), jnp.float32), plgpu.Barrier()],
                       interpret=plgpu.InterpretGPUParams())
    print(run(x)[:2])


if __name__ == "__main__":
    main()
