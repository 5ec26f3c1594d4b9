# pallas-lsp example: invalid
# note: A helper's lax.dot_general with batch dims (0, 1) on (2, 2, 16, 128) x (2, 2, 128, 256) bf16 blocks, compiled for TPU with jax 0.10.2. The chip's label: tests/data/chip/labels.json, cases/tpu-matmul-batch-dims__dot_general_two_batch_helper.py.
# raises: VerificationError: Up to 1 batch dim supported
# oracle: chip
# jax: 0.10.2
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

DIMS = (((3,), (2,)), ((0, 1), (0, 1)))


def grouped_dot(a, b):
    return lax.dot_general(a, b, DIMS, preferred_element_type=jnp.float32)  # error


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
