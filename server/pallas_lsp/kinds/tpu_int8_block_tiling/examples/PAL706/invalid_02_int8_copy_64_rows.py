# pallas-lsp example: invalid
# note: A (64, 256) int8 array copied in (16, 256) row bands with no arithmetic. The chip's label: tests/data/chip/labels.json, chip case cases/tpu-int8-block-tiling__int8_copy_16rows.py.
# raises: JaxRuntimeError: E2002: CompileTimeMosaicMisalignedBlockAndTiling
# fix: Use 32-row blocks (a multiple of 32 dividing the array's 64 rows)
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


M, N, TM = 64, 256, 16


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
