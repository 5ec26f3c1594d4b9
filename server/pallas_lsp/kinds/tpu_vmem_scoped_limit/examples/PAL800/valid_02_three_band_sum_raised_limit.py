# pallas-lsp example: valid
# note: The 16.25 MiB launch with vmem_limit_bytes at 24 MiB. The chip's label: tests/data/chip/labels.json, cases/tpu-vmem-scoped-limit__three_bands_raised_limit_clean.py.
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 1040, 1024
BAND = 520
LIMIT = 24 * 1024 * 1024


def band_spec():
    return pl.BlockSpec((BAND, COLS), lambda i: (i, 0))


def sum3_kernel(a_ref, b_ref, c_ref, o_ref):
    o_ref[...] = a_ref[...] + b_ref[...] + c_ref[...]


def launch(a, b, c):
    return pl.pallas_call(
        sum3_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(ROWS // BAND,),
        in_specs=[band_spec(), band_spec(), band_spec()],
        out_specs=band_spec(),
        compiler_params=pltpu.CompilerParams(vmem_limit_bytes=LIMIT),
    )(a, b, c)


def main():
    # Compiled for TPU (run it where a TPU is attached: compiling is where the chip's limit applies).
    a = jnp.ones((ROWS, COLS), jnp.float32)
    compiled = jax.jit(launch).trace(a, a * 2.0, a * 3.0).lower(lowering_platforms=("tpu",)).compile()
    print(compiled(a, a * 2.0, a * 3.0).shape)


if __name__ == "__main__":
    main()
