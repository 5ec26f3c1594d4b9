# pallas-lsp example: invalid
# note: A copy from an im2col view (made in the kernel) with a barrier, GPU interpret mode forced.
# raises: NotImplementedError: Interpret mode does not support im2col copies
# fix: Build the im2col rows outside the kernel and copy from them plainly (a new input, `img_gmem_windows`)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(img_gmem, out_gmem, rows, bar):
    patches = plgpu.im2col_ref(img_gmem, window_shape=(2, 2))
    src = patches.at[pl.ds(0, 32), 0, 0, pl.ds(0, 8)]
    plgpu.copy_gmem_to_smem(src, rows, bar)  # error
    plgpu.barrier_wait(bar)
    plgpu.commit_smem()
    plgpu.copy_smem_to_gmem(rows, out_gmem)
    plgpu.wait_smem_to_gmem(0)


def main():
    img = jnp.ones((1, 8, 8, 8), jnp.float32)
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((32, 8), jnp.float32),
                       scratch_types=[plgpu.SMEM((32, 8), jnp.float32), plgpu.Barrier()])
    with plgpu.force_gpu_interpret_mode():
        print(run(img)[0, :2])


if __name__ == "__main__":
    main()
