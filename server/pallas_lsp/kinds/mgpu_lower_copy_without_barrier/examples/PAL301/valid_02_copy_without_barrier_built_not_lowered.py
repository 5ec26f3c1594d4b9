# pallas-lsp example: valid
# note: Not lowered for CUDA and not interpreted: the kernel is only built (nothing is traced).
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(a_gmem, out_gmem, buf):
    plgpu.copy_gmem_to_smem(a_gmem, buf)
    plgpu.commit_smem()
    plgpu.copy_smem_to_gmem(buf, out_gmem)
    plgpu.wait_smem_to_gmem(0)


def main():
    spec = jax.ShapeDtypeStruct((256,), jnp.float32)
    run = plgpu.kernel(body, out_type=spec, scratch_types=[plgpu.SMEM((256,), jnp.float32)])
    print(callable(run))


if __name__ == "__main__":
    main()
