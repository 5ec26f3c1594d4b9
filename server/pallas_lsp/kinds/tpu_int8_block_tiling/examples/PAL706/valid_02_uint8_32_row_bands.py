# pallas-lsp example: valid
# note: uint8 in (32, 256) bands. The chip's label: tests/data/chip/labels.json, chip case cases/tpu-int8-block-tiling__uint8_32rows_grid.py.
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False
M, N, TM = 128, 256, 32


def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def launch(x):
    return pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), jnp.uint8),
        grid=(M // TM,),
        in_specs=[pl.BlockSpec((TM, N), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((TM, N), lambda i: (i, 0)),
        interpret=INTERPRET,
    )(x)


def main():
    # Compiled for TPU (run it where a TPU is attached: the chip's compiler checks the tiling).
    spec = jax.ShapeDtypeStruct((M, N), jnp.uint8)
    compiled = jax.jit(launch).trace(spec).lower(lowering_platforms=("tpu",)).compile()
    x = (jnp.arange(M * N, dtype=jnp.int32).reshape(M, N) % 100).astype(jnp.uint8)
    return compiled(x)


if __name__ == "__main__":
    print(main())
