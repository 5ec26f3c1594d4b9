# pallas-lsp example: valid
# note: The same dot with its two batch dims folded into one by reshapes (batch dims (0,)), compiled for TPU with jax 0.10.2: it ran clean on the chip (tests/data/chip/labels.json, cases/tpu-matmul-batch-dims__dot_general_two_batch_helper_fixed.py).
# oracle: chip
# jax: 0.10.2
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

DIMS = (((2,), (1,)), ((0,), (0,)))


def grouped_dot(a, b):
    g, h, m, k = a.shape
    n = b.shape[-1]
    out = lax.dot_general(a.reshape(g * h, m, k), b.reshape(g * h, k, n), DIMS,
                          preferred_element_type=jnp.float32)
    return out.reshape(g, h, m, n)


def mm_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = grouped_dot(a_ref[...], b_ref[...])


def launch(a, b):
    return pl.pallas_call(
        mm_kernel,
        out_shape=jax.ShapeDtypeStruct((2, 2, 16, 256), jnp.float32),
    )(a, b)


def main():
    a = jnp.ones((2, 2, 16, 128), jnp.bfloat16)
    b = jnp.ones((2, 2, 128, 256), jnp.bfloat16)
    # Compiled for TPU (run it where a TPU is attached, with jax 0.10.2).
    print(jax.jit(launch).trace(a, b).lower(lowering_platforms=("tpu",)).compile()(a, b).shape)


if __name__ == "__main__":
    main()
