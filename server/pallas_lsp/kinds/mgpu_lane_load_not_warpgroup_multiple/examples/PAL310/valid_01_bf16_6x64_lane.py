# pallas-lsp example: valid
# note: The clean twin: a (6, 64) operand, 384 elements (three warpgroups).
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu

ROWS, COLS = 6, 64
LANE = plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Lane)


def twice_body(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


def twice(x):
    return plgpu.kernel(twice_body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), compiler_params=LANE)(x)


def main():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16)
    print(jax.jit(twice).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
