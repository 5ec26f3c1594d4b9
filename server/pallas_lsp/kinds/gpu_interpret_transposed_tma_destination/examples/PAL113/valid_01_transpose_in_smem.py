# pallas-lsp example: valid
# note: Transposed in SMEM first (a transposed SMEM read is fine), stored to the untransposed ref.
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(x_gmem, o_gmem, tile, tile_t, bar):
    plgpu.copy_gmem_to_smem(x_gmem, tile, bar)
    plgpu.barrier_wait(bar)
    tile_t[...] = tile[...].T
    plgpu.commit_smem()
    plgpu.copy_smem_to_gmem(tile_t, o_gmem)
    plgpu.wait_smem_to_gmem(0)


def main():
    x = jnp.arange(64 * 32, dtype=jnp.float32).reshape(64, 32)
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((32, 64), jnp.float32),
                       scratch_types=[plgpu.SMEM((64, 32), jnp.float32), plgpu.SMEM((32, 64), jnp.float32),
                                      plgpu.Barrier()],
                       interpret=plgpu.InterpretGPUParams())
    print(run(x)[0, :2])


if __name__ == "__main__":
    main()
