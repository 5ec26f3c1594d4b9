# case: family=tpu-64-bit-types chip=clean cpu=lowers interp=clean
# intent: the twin without jax_enable_x64: astype(jnp.float64) inside the kernel is float32 when x64 is off.
# grounded: jax's dtype canonicalisation (float64 -> float32 without x64)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def precise_sum_kernel(x_ref, o_ref):
    x64 = x_ref[...].astype(jnp.float64)
    s = jnp.sum(x64, axis=1, keepdims=True)
    o_ref[...] = jnp.broadcast_to(s.astype(jnp.float32), o_ref.shape)


def launch(x):
    return pl.pallas_call(
        precise_sum_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 7.0,)


def reference(x):
    import numpy as np
    return np.broadcast_to(x.sum(1, keepdims=True), x.shape)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
