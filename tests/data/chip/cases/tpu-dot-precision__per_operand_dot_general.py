# case: family=tpu-dot-precision chip=raises cpu=raises interp=wrong-result
# intent: lax.dot_general of (32, 128) x (128, 128) f32 blocks with a per-operand precision (HIGHEST, DEFAULT), on a 2-step grid.
# grounded: jax/_src/pallas/mosaic/lowering.py _dot_general_lowering_rule ("Per-operand dot precision unsupported")
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

INTERPRET = False
TOLERANCE = (1e-2, 1e-2)
MIXED = (lax.Precision.HIGHEST, lax.Precision.DEFAULT)


def mix_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = lax.dot_general(x_ref[...], w_ref[...], (((1,), (0,)), ((), ())),  # FAIL
                                 precision=MIXED)


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
