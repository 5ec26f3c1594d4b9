# case: family=tpu-fp8-elementwise chip=raises cpu=lowers interp=clean
# intent: add two (16, 128) float8_e5m2 tiles and keep the fp8 result.
# grounded: Mosaic (libtpu) legalisation of arith.addf on vector<...xf8E5M2> (v5e has no fp8 VPU arithmetic); chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def fp8_add_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = a_ref[...] + b_ref[...]  # FAIL


def launch(a, b):
    return pl.pallas_call(
        fp8_add_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float8_e5m2),
        interpret=INTERPRET,
    )(a, b)


def inputs():
    base = jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128)
    return (((base % 8) / 2.0).astype(jnp.float8_e5m2), ((base % 4) + 1.0).astype(jnp.float8_e5m2))


def reference(a, b):
    import ml_dtypes
    return (a.astype("float32") + b.astype("float32")).astype(ml_dtypes.float8_e5m2)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
