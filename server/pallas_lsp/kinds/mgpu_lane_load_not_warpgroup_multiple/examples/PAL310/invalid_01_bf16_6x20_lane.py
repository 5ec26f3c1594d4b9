# pallas-lsp example: invalid
# note: plgpu.kernel under Lane semantics loads a whole (6, 20) bfloat16 operand: 120 elements.
# raises: ValueError: memref<6x20xbf16> must have a number of elements that is a multiple of 128 \(got 120\)
# oracle: lower-cuda
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu

ROWS, COLS = 6, 20
LANE = plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Lane)


def twice_body(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2  # error


def twice(x):
    return plgpu.kernel(twice_body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), compiler_params=LANE)(x)


def main():
    x = jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16)
    print(jax.jit(twice).trace(x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
