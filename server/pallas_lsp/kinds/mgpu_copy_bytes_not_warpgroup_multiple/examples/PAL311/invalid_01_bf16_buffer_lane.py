# pallas-lsp example: invalid
# note: plgpu.kernel under Lane semantics: 48 bfloat16 elements (96 bytes) copied into SMEM.
# raises: NotImplementedError: Only copies transferring a number of bytes divisible by the warpgroup size are supported\. Got bytes=96 but warpgroup size is 128
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu

TOKENS = 48


def stage_body(x_gmem, o_gmem, buf, barrier):
    plgpu.copy_gmem_to_smem(x_gmem, buf, barrier)  # error
    plgpu.barrier_wait(barrier)
    plgpu.copy_smem_to_gmem(buf, o_gmem)
    plgpu.wait_smem_to_gmem(0)


def stage(x):
    return plgpu.kernel(
        stage_body,
        out_type=jax.ShapeDtypeStruct((TOKENS,), jnp.bfloat16),
        scratch_types=[plgpu.SMEM((TOKENS,), jnp.bfloat16), plgpu.Barrier()],
        compiler_params=plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Lane),
    )(x)


def main():
    x = jax.ShapeDtypeStruct((TOKENS,), jnp.bfloat16)
    print(jax.jit(stage).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
