# case: family=tpu-vmem-scoped-limit chip=clean cpu=lowers interp=clean
# intent: the three-band sum with (504, 1024) bands: 4 x 2 x 1.97 MiB = 15.75 MiB, under the 16 MiB default.
# grounded: the VMEM budget model (analysis/vmem_budget.py, calibrated in tests/data/chip/vmem_calibration.jsonl); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False

ROWS, COLS = 1008, 1024
BAND = 504


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
