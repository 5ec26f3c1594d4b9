# pallas-lsp example: valid
# note: A 96-byte gmem-to-smem copy alone under the default Warpgroup semantics (jax 0.11+): no warpgroup byte check.
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu

TOKENS = 48


def stage_body(x_gmem, o_gmem, buf, barrier):
    plgpu.copy_gmem_to_smem(x_gmem, buf, barrier)
    plgpu.barrier_wait(barrier)


def stage(x):
    return plgpu.kernel(
        stage_body,
        out_type=jax.ShapeDtypeStruct((TOKENS,), jnp.bfloat16),
        scratch_types=[plgpu.SMEM((TOKENS,), jnp.bfloat16), plgpu.Barrier()],
    )(x)


def main():
    x = jax.ShapeDtypeStruct((TOKENS,), jnp.bfloat16)
    print(jax.jit(stage).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
