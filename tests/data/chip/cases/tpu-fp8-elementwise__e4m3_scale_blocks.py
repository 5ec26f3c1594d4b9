# case: family=tpu-fp8-elementwise chip=raises cpu=lowers interp=clean
# intent: scale (32, 128) float8_e4m3fn blocks by a Python float in a gridded kernel, fp8 out.
# grounded: Mosaic (libtpu) legalisation of arith.mulf on fp8 vectors; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def scale_kernel(q_ref, o_ref):
    q = q_ref[...]
    o_ref[...] = q * 0.5  # FAIL


def launch(q):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),
        grid=(2,),
        in_specs=[pl.BlockSpec((32, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((32, 128), lambda i: (i, 0)),
        interpret=INTERPRET,
    )(q)


def inputs():
    base = jnp.arange(64 * 128, dtype=jnp.float32).reshape(64, 128)
    return (((base % 16) / 4.0).astype(jnp.float8_e4m3fn),)


def reference(q):
    import ml_dtypes
    return (q.astype("float32") * 0.5).astype(ml_dtypes.float8_e4m3fn)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
