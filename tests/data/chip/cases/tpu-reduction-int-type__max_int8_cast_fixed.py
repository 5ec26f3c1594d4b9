# case: family=tpu-reduction-int-type chip=clean cpu=lowers interp=clean
# intent: the fix of an int8 row maximum: cast the (32, 256) int8 block to int32 before jnp.max.
# grounded: fix of PAL715 (int32 is the integer type the reduction lowering takes; int8 -> int32 is exact)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def absmax_kernel(q_ref, o_ref):
    q = q_ref[...]
    o_ref[...] = jnp.max(jnp.abs(q.astype(jnp.int32)), axis=1, keepdims=True)


def launch(q):
    return pl.pallas_call(
        absmax_kernel,
        out_shape=jax.ShapeDtypeStruct((32, 1), jnp.int32),
        interpret=INTERPRET,
    )(q)


def inputs():
    return (((jnp.arange(32 * 256, dtype=jnp.int32).reshape(32, 256) * 37) % 255 - 127).astype(jnp.int8),)


def reference(q):
    import numpy as np
    return np.abs(np.asarray(q, np.int32)).max(axis=1, keepdims=True)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
