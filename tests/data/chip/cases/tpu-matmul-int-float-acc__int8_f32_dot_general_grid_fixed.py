# case: family=tpu-matmul-int-float-acc chip=clean cpu=lowers interp=clean
# intent: the fixed program of tpu-matmul-int-float-acc__int8_f32_dot_general_grid: accumulate in int32, then convert to float32.
# grounded: fix of PAL714 (preferred_element_type=int32 and .astype(float32))
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

INTERPRET = False


def qmm_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = lax.dot_general(a_ref[...], b_ref[...], (((1,), (0,)), ((), ())),
                                 preferred_element_type=jnp.int32).astype(jnp.float32)


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
