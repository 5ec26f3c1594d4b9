# case: family=tpu-vmem-scoped-limit chip=clean cpu=lowers interp=clean
# intent: the three-band sum of tpu-vmem-scoped-limit__three_bands_over with vmem_limit_bytes raised to 24 MiB (the fix PAL800 would offer): 16.25 MiB fits.
# grounded: the VMEM budget model (analysis/vmem_budget.py, calibrated in tests/data/chip/vmem_calibration.jsonl); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False

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
        interpret=INTERPRET,
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
