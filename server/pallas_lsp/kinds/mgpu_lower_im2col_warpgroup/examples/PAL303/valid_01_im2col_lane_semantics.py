# pallas-lsp example: valid
# note: The same copy under Lane semantics lowers for CUDA.
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(img_gmem, out_gmem, rows, bar):
    patches = plgpu.im2col_ref(img_gmem, window_shape=(2, 2))
    plgpu.copy_gmem_to_smem(patches.at[pl.ds(0, 32), 0, 0, pl.ds(0, 8)], rows, bar)
    plgpu.barrier_wait(bar)
    plgpu.copy_smem_to_gmem(rows, out_gmem)
    plgpu.wait_smem_to_gmem(0)


def main():
    img = jax.ShapeDtypeStruct((1, 8, 8, 8), jnp.float32)
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((32, 8), jnp.float32),
                       scratch_types=[plgpu.SMEM((32, 8), jnp.float32), plgpu.Barrier()],
                       compiler_params=plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Lane))
    print(len(jax.jit(run).trace(img).lower(lowering_platforms=("cuda",)).as_text()) > 0)


if __name__ == "__main__":
    main()
