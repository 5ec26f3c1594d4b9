# case: family=tpu-dot-precision chip=raises cpu=raises interp=clean
# intent: f32 (16, 256) x (256, 128) matmul in a helper asking precision='tensorfloat32' (= lax.Precision.HIGH).
# grounded: jax/_src/pallas/mosaic/lowering.py _dot_general_lowering_rule ("Unsupported dot precision: HIGH": 0.10.2 lowers only DEFAULT and HIGHEST)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False
TOLERANCE = (1e-3, 1e-3)


def _project(x, w):
    return jnp.matmul(x, w, precision="tensorfloat32")  # FAIL


def proj_kernel(x_ref, w_ref, o_ref):
    o_ref[...] = _project(x_ref[...], w_ref[...])


def launch(x, w):
    return pl.pallas_call(
        proj_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
        interpret=INTERPRET,
    )(x, w)


def inputs():
    x = jnp.sin(jnp.arange(16 * 256, dtype=jnp.float32).reshape(16, 256) * 0.03)
    w = jnp.cos(jnp.arange(256 * 128, dtype=jnp.float32).reshape(256, 128) * 0.07) / 16.0
    return (x, w)


def reference(x, w):
    import numpy as np
    return (np.asarray(x, np.float64) @ np.asarray(w, np.float64)).astype(np.float32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
