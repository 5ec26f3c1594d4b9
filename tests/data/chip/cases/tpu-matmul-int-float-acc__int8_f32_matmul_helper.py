# case: family=tpu-matmul-int-float-acc chip=raises cpu=lowers interp=clean
# intent: int8 (32, 256) x int8 (256, 128) jnp.matmul in a helper asking a float32 result (preferred_element_type=float32).
# grounded: Mosaic canonicalize_matmul ("float acc with int lhs. Expected float lhs."), inside libtpu; the chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False
TOLERANCE = (1e-2, 1.0)


def _qmm(a, b):
    return jnp.matmul(a, b, preferred_element_type=jnp.float32)  # FAIL


def qmm_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = _qmm(a_ref[...], b_ref[...]).astype(jnp.float32)


def launch(a, b):
    return pl.pallas_call(
        qmm_kernel,
        out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
        interpret=INTERPRET,
    )(a, b)


def inputs():
    a = ((jnp.arange(32 * 256, dtype=jnp.int32).reshape(32, 256) % 5) - 2).astype(jnp.int8)
    b = ((jnp.arange(256 * 128, dtype=jnp.int32).reshape(256, 128) % 3) - 1).astype(jnp.int8)
    return (a, b)


def reference(a, b):
    import numpy as np
    return (np.asarray(a, np.int32) @ np.asarray(b, np.int32)).astype(np.float32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
