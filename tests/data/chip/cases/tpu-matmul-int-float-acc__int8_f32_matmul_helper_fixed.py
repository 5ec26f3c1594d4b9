# case: family=tpu-matmul-int-float-acc chip=clean cpu=lowers interp=clean
# intent: the fixed program of tpu-matmul-int-float-acc__int8_f32_matmul_helper: accumulate in int32, then convert to float32.
# grounded: fix of PAL714 (preferred_element_type=int32 and .astype(float32))
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False
TOLERANCE = (1e-2, 1.0)


def _qmm(a, b):
    return jnp.matmul(a, b, preferred_element_type=jnp.int32).astype(jnp.float32)


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
