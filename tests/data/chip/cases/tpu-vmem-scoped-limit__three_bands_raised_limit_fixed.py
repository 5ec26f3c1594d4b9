# case: family=tpu-vmem-scoped-limit chip=clean cpu=lowers interp=clean
# intent: the fix "Raise vmem_limit_bytes to 21 MiB (this launch needs 16.25 MiB; TPU v5e has 128 MiB)" applied by pallas-lsp to three_bands_over: sum three (1040, 1024) float32 arrays in (520, 1024) row bands over a 2-step grid: 4 operands x 2 buffers x 2.03 MiB = 16.25 MiB, over the 16 MiB default scoped limit of a v5e.
# grounded: the VMEM budget model (analysis/vmem_budget.py, calibrated in tests/data/chip/vmem_calibration.jsonl); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
import jax.experimental.pallas.tpu as pltpu

INTERPRET = False

ROWS, COLS = 1040, 1024
BAND = 520


def band_spec():
    return pl.BlockSpec((BAND, COLS), lambda i: (i, 0))


def sum3_kernel(a_ref, b_ref, c_ref, o_ref):
    o_ref[...] = a_ref[...] + b_ref[...] + c_ref[...]


def launch(a, b, c):
    return pl.pallas_call(  # DECOY
        sum3_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(ROWS // BAND,),
        in_specs=[band_spec(), band_spec(), band_spec()],
        out_specs=band_spec(),
        interpret=INTERPRET,
        compiler_params=pltpu.CompilerParams(vmem_limit_bytes=21 * 1024 * 1024),
    )(a, b, c)


def inputs():
    a = jnp.ones((ROWS, COLS), jnp.float32)
    return a, a * 2.0, a * 3.0


def reference(a, b, c):
    return a + b + c


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
