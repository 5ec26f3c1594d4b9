# pallas-lsp example: invalid
# note: pl.pallas_call given Mosaic GPU compiler params (from a constant), lowered for CUDA.
# raises: AssertionError: ^$
# fix: Launch it with plgpu.kernel, which takes Mosaic GPU compiler params (its operands stay in GMEM)
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

PARAMS = plgpu.CompilerParams(approx_math=True)


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 0.25


def main():
    spec = jax.ShapeDtypeStruct((128,), jnp.float32)
    quarter = pl.pallas_call(kernel, out_shape=spec, compiler_params=PARAMS)  # error
    print(jax.jit(quarter).trace(spec).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
