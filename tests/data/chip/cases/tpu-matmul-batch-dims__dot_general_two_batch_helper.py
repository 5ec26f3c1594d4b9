# case: family=tpu-matmul-batch-dims chip=raises cpu=raises interp=clean
# intent: lax.dot_general with batch dims (0, 1) on bf16 (2, 2, 16, 128) x (2, 2, 128, 256) blocks, called through a helper, f32 result.
# grounded: Mosaic tpu.matmul verifier ("Not implemented: Up to 1 batch dim supported"), run by func_op.verify() in the Pallas lowering
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

INTERPRET = False
TOLERANCE = (2e-2, 2e-2)
DIMS = (((3,), (2,)), ((0, 1), (0, 1)))


def grouped_dot(a, b):
    return lax.dot_general(a, b, DIMS, preferred_element_type=jnp.float32)  # FAIL


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
