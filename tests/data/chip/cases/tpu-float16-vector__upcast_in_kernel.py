# case: family=tpu-float16-vector chip=raises cpu=lowers interp=clean
# intent: read a (16, 128) float16 tile and widen it to float32 inside the kernel (float32 output).
# grounded: Mosaic (libtpu) 'Invalid vector type for load' for a float16 memref; chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def widen(v):
    return v.astype(jnp.float32) * 2.0


def widen_kernel(h_ref, o_ref):
    o_ref[...] = widen(h_ref[...])  # FAIL


def launch(h):
    return pl.pallas_call(
        widen_kernel,
        out_shape=jax.ShapeDtypeStruct(h.shape, jnp.float32),
        interpret=INTERPRET,
    )(h)


def inputs():
    return ((jnp.arange(16 * 128, dtype=jnp.float32).reshape(16, 128) / 32.0).astype(jnp.float16),)


def reference(h):
    return h.astype("float32") * 2.0


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
