# pallas-lsp example: invalid
# note: A (128, 256) int8 array copied in (16, 256) row bands: the chip tiles 8-bit operands (32, 128). The chip's label: tests/data/chip/labels.json, chip case cases/tpu-int8-block-tiling__int8_16rows_grid.py; the fix's program ran clean there: cases/tpu-int8-block-tiling__int8_32rows_grid.py.
# raises: JaxRuntimeError: E2002: CompileTimeMosaicMisalignedBlockAndTiling
# fix: Use 32-row blocks (a multiple of 32 dividing the array's 128 rows)
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False
M, N, TM = 128, 256, 16


def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def launch(x):
    return pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.int8),
        grid=(M // TM,),
        in_specs=[pl.BlockSpec((TM, N), lambda i: (i, 0))],  # error
        out_specs=pl.BlockSpec((TM, N), lambda i: (i, 0)),
        interpret=INTERPRET,
    )(x)


def main():
    # Compiled for TPU (run it where a TPU is attached: the chip's compiler checks the tiling).
    spec = jax.ShapeDtypeStruct((M, N), jnp.int8)
    compiled = jax.jit(launch).trace(spec).lower(lowering_platforms=("tpu",)).compile()
    x = (jnp.arange(M * N, dtype=jnp.int32).reshape(M, N) % 100).astype(jnp.int8)
    return compiled(x)


if __name__ == "__main__":
    print(main())
