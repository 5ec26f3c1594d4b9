# pallas-lsp example: valid
# note: The rows are gathered outside the kernel and copied plainly; the im2col view is made but never copied from.
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(rows_gmem, img_gmem, out_gmem, rows, bar):
    plgpu.im2col_ref(img_gmem, window_shape=(2, 2))
    plgpu.copy_gmem_to_smem(rows_gmem, rows, bar)
    plgpu.barrier_wait(bar)
    plgpu.commit_smem()
    plgpu.copy_smem_to_gmem(rows, out_gmem)
    plgpu.wait_smem_to_gmem(0)


def main():
    img = jnp.ones((1, 8, 8, 8), jnp.float32)
    rows_in = img[0, :4, :8, :].reshape(32, 8)
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((32, 8), jnp.float32),
                       scratch_types=[plgpu.SMEM((32, 8), jnp.float32), plgpu.Barrier()])
    with plgpu.force_gpu_interpret_mode():
        print(run(rows_in, img)[0, :2])


if __name__ == "__main__":
    main()
