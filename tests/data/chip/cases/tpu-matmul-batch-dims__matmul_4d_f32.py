# case: family=tpu-matmul-batch-dims chip=raises cpu=raises interp=wrong-result
# intent: jnp.matmul of f32 (3, 2, 16, 128) x (3, 2, 128, 256) blocks: both leading dims become dot_general batch dims.
# grounded: Mosaic tpu.matmul verifier ("Up to 1 batch dim supported"), run by func_op.verify() in the Pallas lowering
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False
TOLERANCE = (1e-2, 1e-2)


def bmm_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.matmul(a_ref[...], b_ref[...])  # FAIL


def launch(a, b):
    return pl.pallas_call(
        bmm_kernel,
        out_shape=jax.ShapeDtypeStruct((3, 2, 16, 256), jnp.float32),
        interpret=INTERPRET,
    )(a, b)


def inputs():
    a = jnp.arange(3 * 2 * 16 * 128, dtype=jnp.float32).reshape(3, 2, 16, 128) / 12288.0
    b = jnp.sin(jnp.arange(3 * 2 * 128 * 256, dtype=jnp.float32).reshape(3, 2, 128, 256))
    return (a, b)


def reference(a, b):
    import numpy as np
    return (np.asarray(a, np.float64) @ np.asarray(b, np.float64)).astype(np.float32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
