# pallas-lsp example: invalid
# note: Three inputs and an output in (520, 1024) float32 bands, double-buffered: 16.25 MiB over the 16 MiB default. The chip's label: tests/data/chip/labels.json, cases/tpu-vmem-scoped-limit__three_bands_over.py; the fix's program ran clean there: cases/tpu-vmem-scoped-limit__three_bands_raised_limit_fixed.py.
# raises: JaxRuntimeError: RESOURCE_EXHAUSTED: E1001: CompileTimeScopedVmemOom
# fix: Raise vmem_limit_bytes to 21 MiB (this launch needs 16.25 MiB; TPU v5e has 128 MiB)
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS, COLS = 1040, 1024
BAND = 520


def band_spec():
    return pl.BlockSpec((BAND, COLS), lambda i: (i, 0))


def sum3_kernel(a_ref, b_ref, c_ref, o_ref):
    o_ref[...] = a_ref[...] + b_ref[...] + c_ref[...]


def launch(a, b, c):
    return pl.pallas_call(
        sum3_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(ROWS // BAND,),
        in_specs=[band_spec(), band_spec(), band_spec()],  # error
        out_specs=band_spec(),
    )(a, b, c)


def main():
    # Compiled for TPU (run it where a TPU is attached: compiling is where the chip's limit applies).
    a = jnp.ones((ROWS, COLS), jnp.float32)
    compiled = jax.jit(launch).trace(a, a * 2.0, a * 3.0).lower(lowering_platforms=("tpu",)).compile()
    print(compiled(a, a * 2.0, a * 3.0).shape)


if __name__ == "__main__":
    main()
