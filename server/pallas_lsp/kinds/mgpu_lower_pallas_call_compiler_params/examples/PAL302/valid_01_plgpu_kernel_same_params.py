# pallas-lsp example: valid
# note: plgpu.kernel with the same compiler params lowers for CUDA.
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu

PARAMS = plgpu.CompilerParams(approx_math=True)


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.25


def main():
    spec = jax.ShapeDtypeStruct((128,), jnp.float32)
    quarter = plgpu.kernel(kernel, out_type=spec, compiler_params=PARAMS)
    print(len(jax.jit(quarter).trace(spec).lower(lowering_platforms=("cuda",)).as_text()) > 0)


if __name__ == "__main__":
    main()
