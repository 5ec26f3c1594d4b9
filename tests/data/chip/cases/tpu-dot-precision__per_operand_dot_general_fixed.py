# case: family=tpu-dot-precision chip=clean cpu=lowers interp=clean
# intent: the fixed program of tpu-dot-precision__per_operand_dot_general: one precision for both operands (the higher, HIGHEST).
# grounded: fix of PAL711 (the same precision for both operands)
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

INTERPRET = False
TOLERANCE = (1e-2, 1e-2)
SAME = (lax.Precision.HIGHEST, lax.Precision.HIGHEST)


def mix_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = lax.dot_general(x_ref[...], w_ref[...], (((1,), (0,)), ((), ())),
                                 precision=SAME)


def launch(x, w):
    return pl.pallas_call(
        mix_kernel,
        grid=(2,),
        in_specs=[pl.BlockSpec((32, 128), lambda i: (i, 0)),
                  pl.BlockSpec((128, 128), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((32, 128), lambda i: (i, 0)),
        out_shape=jax.ShapeDtypeStruct((64, 128), jnp.float32),
        interpret=INTERPRET,
    )(x, w)


def inputs():
    x = jnp.arange(64 * 128, dtype=jnp.float32).reshape(64, 128) / 8192.0
    w = jnp.sin(jnp.arange(128 * 128, dtype=jnp.float32).reshape(128, 128))
    return (x, w)


def reference(x, w):
    import numpy as np
    return (np.asarray(x, np.float64) @ np.asarray(w, np.float64)).astype(np.float32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
