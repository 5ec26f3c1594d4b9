# case: family=tpu-reduction-int-type chip=clean cpu=lowers interp=clean
# intent: the fixed program of tpu-reduction-int-type__sum_uint8_promotes: the uint8 block cast to int32 before jnp.sum.
# grounded: fix of PAL715 (int32 is the integer type the reduction lowering takes; uint8 -> int32 is exact)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def rowsum_kernel(x_ref, o_ref):
    o_ref[...] = jnp.sum(x_ref[...].astype(jnp.int32), axis=1, keepdims=True)


def launch(x):
    return pl.pallas_call(
        rowsum_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 1), jnp.int32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return ((jnp.arange(8 * 256, dtype=jnp.int32).reshape(8, 256) % 251).astype(jnp.uint8),)


def reference(x):
    import numpy as np
    return np.asarray(x, np.int32).sum(axis=1, keepdims=True)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
