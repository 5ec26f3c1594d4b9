# case: family=tpu-reduction-int-type chip=clean cpu=lowers interp=clean
# intent: the fixed program of tpu-reduction-int-type__min_int16_method: the int16 block cast to int32 before x.min.
# grounded: fix of PAL715 (int16 -> int32 is exact)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def colmin_kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x.astype(jnp.int32).min(axis=0, keepdims=True)


def launch(x):
    return pl.pallas_call(
        colmin_kernel,
        out_shape=jax.ShapeDtypeStruct((1, 128), jnp.int32),
        interpret=INTERPRET,
    )(x)


def inputs():
    return ((jnp.arange(16 * 128, dtype=jnp.int32).reshape(16, 128) * 31 % 1000 - 500).astype(jnp.int16),)


def reference(x):
    import numpy as np
    return np.asarray(x, np.int32).min(axis=0, keepdims=True)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
