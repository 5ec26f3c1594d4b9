# case: family=tpu-matmul-batch-dims chip=clean cpu=lowers interp=clean
# intent: the fixed program of dot_general_two_batch_helper: the two batch dims folded into one by reshapes, batch dims (0,).
# grounded: fix of PAL712 (one batch dim)
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

INTERPRET = False
TOLERANCE = (2e-2, 2e-2)
DIMS = (((2,), (1,)), ((0,), (0,)))


def grouped_dot(a, b):
    g, h, m, k = a.shape
    n = b.shape[-1]
    out = lax.dot_general(a.reshape(g * h, m, k), b.reshape(g * h, k, n), DIMS,  # DECOY
                          preferred_element_type=jnp.float32)
    return out.reshape(g, h, m, n)


def mm_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = grouped_dot(a_ref[...], b_ref[...])


def launch(a, b):
    return pl.pallas_call(
        mm_kernel,
        out_shape=jax.ShapeDtypeStruct((2, 2, 16, 256), jnp.float32),
        interpret=INTERPRET,
    )(a, b)


def inputs():
    a = (jnp.arange(2 * 2 * 16 * 128, dtype=jnp.float32).reshape(2, 2, 16, 128) / 8192.0).astype(jnp.bfloat16)
    b = jnp.cos(jnp.arange(2 * 2 * 128 * 256, dtype=jnp.float32).reshape(2, 2, 128, 256)).astype(jnp.bfloat16)
    return (a, b)


def reference(a, b):
    import numpy as np
    return np.einsum("ghij,ghjk->ghik", np.asarray(a, np.float32), np.asarray(b, np.float32))


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
