# pallas-lsp example: valid
# note: The store under pl.when instead of a predicate.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

PARAMS = plgpu.InterpretGPUParams()


def body(x_gmem, o_gmem, buf, bar):
    plgpu.copy_gmem_to_smem(x_gmem, buf, bar)
    plgpu.barrier_wait(bar)
    plgpu.commit_smem()

    @pl.when(True)
    def _():
        plgpu.copy_smem_to_gmem(buf, o_gmem)

    plgpu.wait_smem_to_gmem(0)


def main():
    x = jnp.ones((128,), jnp.float32)
    run = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
                       scratch_types=[plgpu.SMEM((128,), jnp.float32), plgpu.Barrier()],
                       interpret=PARAMS)
    print(run(x)[:2])


if __name__ == "__main__":
    main()
