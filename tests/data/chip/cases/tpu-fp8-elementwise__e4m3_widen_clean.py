# case: family=tpu-fp8-elementwise chip=clean cpu=lowers interp=clean
# intent: the clean twin: read a (32, 128) float8_e4m3fn tile and compute in float32 (no fp8 arithmetic).
# grounded: fp8 loads and fp8->f32 casts; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def widen_kernel(q_ref, s_ref, o_ref):
    o_ref[...] = q_ref[...].astype(jnp.float32) * s_ref[...]


def launch(q, s):
    return pl.pallas_call(
        widen_kernel,
        out_shape=jax.ShapeDtypeStruct(q.shape, jnp.float32),
        interpret=INTERPRET,
    )(q, s)


def inputs():
    base = jnp.arange(32 * 128, dtype=jnp.float32).reshape(32, 128)
    return (((base % 16) / 4.0).astype(jnp.float8_e4m3fn), jnp.full((32, 128), 0.25, jnp.float32))


def reference(q, s):
    return q.astype("float32") * s


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
