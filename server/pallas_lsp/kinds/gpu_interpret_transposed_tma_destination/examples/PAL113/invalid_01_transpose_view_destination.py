# pallas-lsp example: invalid
# note: The destination is a .transpose((1, 0)) view bound to a name first; GPU interpret params.
# raises: JaxRuntimeError: Transposed TMA destination not supported
# fix: Transpose in SMEM first (a new buffer of the transposed shape) and store that to the untransposed ref
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_gmem, o_gmem, tile, bar):
    plgpu.copy_gmem_to_smem(x_gmem, tile, bar)
    plgpu.barrier_wait(bar)
    plgpu.commit_smem()
    out_t = o_gmem.transpose((1, 0))
    plgpu.copy_smem_to_gmem(tile, out_t)  # error
    plgpu.wait_smem_to_gmem(0)


def main():
    x = jnp.arange(64 * 32, dtype=jnp.float32).reshape(64, 32)
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((32, 64), jnp.float32),
                       scratch_types=[plgpu.SMEM((64, 32), jnp.float32), plgpu.Barrier()],
                       interpret=plgpu.InterpretGPUParams())
    print(run(x)[0, :2])


if __name__ == "__main__":
    main()
