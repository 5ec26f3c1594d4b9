# pallas-lsp example: valid
# note: The same kernel under GPU interpret params, which model SMEM and TMA copies.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def main():
    x = jnp.ones((128,), jnp.float32)

    @pl.kernel(out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), mesh=plgpu.Mesh(grid=(1,), grid_names=("g",)),
               scratch_types=[plgpu.SMEM((128,), jnp.float32)], interpret=plgpu.InterpretGPUParams())
    def triple(x_ref, o_ref, tmp):
        tmp[...] = x_ref[...] * 3.0
        plgpu.commit_smem()
        plgpu.copy_smem_to_gmem(tmp, o_ref)
        plgpu.wait_smem_to_gmem(0)

    print(triple(x)[:4])


if __name__ == "__main__":
    main()
