# case: family=tpu-matmul-int-float-acc chip=raises cpu=lowers interp=clean
# intent: int8 (64, 128) blocks of a (128, 128) array times an int8 (128, 256) matrix by lax.dot_general with preferred_element_type=float32, on a 2-step grid.
# grounded: Mosaic canonicalize_matmul ("float acc with int lhs. Expected float lhs."), inside libtpu; the chip decides
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

INTERPRET = False


def qmm_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = lax.dot_general(a_ref[...], b_ref[...], (((1,), (0,)), ((), ())),  # FAIL
                                 preferred_element_type=jnp.float32)


def launch(a, b):
    return pl.pallas_call(
        qmm_kernel,
        grid=(2,),
        in_specs=[pl.BlockSpec((64, 128), lambda i: (i, 0)),
                  pl.BlockSpec((128, 256), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((64, 256), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct((128, 256), jnp.float32),
        interpret=INTERPRET,
    )(a, b)


def inputs():
    a = ((jnp.arange(128 * 128, dtype=jnp.int32).reshape(128, 128) % 9) - 4).astype(jnp.int8)
    b = ((jnp.arange(128 * 256, dtype=jnp.int32).reshape(128, 256) % 5) - 2).astype(jnp.int8)
    return (a, b)


def reference(a, b):
    import numpy as np
    return (np.asarray(a, np.int32) @ np.asarray(b, np.int32)).astype(np.float32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
