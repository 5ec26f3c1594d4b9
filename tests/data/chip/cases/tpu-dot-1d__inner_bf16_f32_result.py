# case: family=tpu-dot-1d chip=raises cpu=raises interp=clean
# intent: jnp.inner of two whole (256,) bf16 vectors with preferred_element_type=float32, written into an (8, 128) f32 tile.
# grounded: jax/_src/pallas/mosaic/lowering.py _dot_general_lowering_rule (rank-0 result)
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


@functools.partial(
    pl.pallas_call,
    out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
    interpret=INTERPRET,
)
def inner_kernel(a_ref, b_ref, o_ref):
    total = jnp.inner(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)  # FAIL
    o_ref[...] = jnp.zeros(o_ref.shape, jnp.float32) + total


def launch(a, b):
    return inner_kernel(a, b)


def inputs():
    a = (jnp.arange(256, dtype=jnp.float32) % 13 / 13.0).astype(jnp.bfloat16)
    b = (jnp.arange(256, dtype=jnp.float32) % 7 / 7.0).astype(jnp.bfloat16)
    return (a, b)


def reference(a, b):
    import numpy as np
    s = np.dot(np.asarray(a, np.float64), np.asarray(b, np.float64))
    return np.full((8, 128), s, np.float32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
