# case: family=tpu-fp8-elementwise chip=clean cpu=lowers interp=clean
# intent: the fixed program of dtype__fp8_elementwise: both fp8 operands widened to float32, multiplied, the product cast back to float8_e4m3fn.
# grounded: fp8 loads/stores and fp8<->f32 casts; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def fp8_mul_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = (a_ref[...].astype(jnp.float32) * b_ref[...].astype(jnp.float32)).astype(jnp.float8_e4m3fn)


def launch(a, b):
    return pl.pallas_call(
        fp8_mul_kernel,
        out_shape=jax.ShapeDtypeStruct(a.shape, jnp.float8_e4m3fn),
        interpret=INTERPRET,
    )(a, b)


def inputs():
    base = jnp.arange(32 * 128, dtype=jnp.float32).reshape(32, 128)
    a = ((base % 8) / 4.0).astype(jnp.float8_e4m3fn)
    b = ((base % 3) + 1.0).astype(jnp.float8_e4m3fn)
    return (a, b)


def reference(a, b):
    import ml_dtypes
    return (a.astype("float32") * b.astype("float32")).astype(ml_dtypes.float8_e4m3fn)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
