# pallas-lsp example: invalid
# note: A helper's wait_smem_to_gmem (no Ref operand) passes discharge and has no CPU lowering.
# raises: NotImplementedError: MLIR translation rule for primitive 'wait_smem_to_gmem' not found for platform cpu
# fix: Interpret it with the GPU interpreter: interpret=plgpu.InterpretGPUParams()
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def drain():
    plgpu.wait_smem_to_gmem(0)  # error


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] - 1.0
    drain()


def main():
    x = jnp.ones((128,), jnp.float32)
    print(pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)[:4])


if __name__ == "__main__":
    main()
