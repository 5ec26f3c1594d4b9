# pallas-lsp example: invalid
# note: commit_smem comes first in the body, but discharge fails first, on the copy that takes Refs.
# raises: NotImplementedError: No state discharge rule implemented for primitive: copy_smem_to_gmem
# fix: Interpret it with the GPU interpreter: interpret=plgpu.InterpretGPUParams()
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def main():
    x = jnp.ones((128,), jnp.float32)

    @pl.kernel(out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), mesh=plgpu.Mesh(grid=(1,), grid_names=("g",)),
               scratch_types=[plgpu.SMEM((128,), jnp.float32)], interpret=True)
    def triple(x_ref, o_ref, tmp):
        tmp[...] = x_ref[...] * 3.0
        plgpu.commit_smem()
        plgpu.copy_smem_to_gmem(tmp, o_ref)  # error
        plgpu.wait_smem_to_gmem(0)

    print(triple(x)[:4])


if __name__ == "__main__":
    main()
