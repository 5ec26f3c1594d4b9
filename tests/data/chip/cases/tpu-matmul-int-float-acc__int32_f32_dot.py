# case: family=tpu-matmul-int-float-acc chip=raises cpu=lowers interp=clean
# intent: int32 (8, 128) x int32 (128, 128) jnp.dot with preferred_element_type=float32 (an int32 lhs with a float accumulator; the chip decides).
# grounded: Mosaic canonicalize_matmul ("float acc with int lhs"), inside libtpu; the chip decides
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def count_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)  # FAIL


def launch(a, b):
    return pl.pallas_call(
        count_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        interpret=INTERPRET,
    )(a, b)


def inputs():
    a = jnp.arange(8 * 128, dtype=jnp.int32).reshape(8, 128) % 4
    b = jnp.arange(128 * 128, dtype=jnp.int32).reshape(128, 128) % 3
    return (a, b)


def reference(a, b):
    import numpy as np
    return (np.asarray(a, np.int64) @ np.asarray(b, np.int64)).astype(np.float32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
