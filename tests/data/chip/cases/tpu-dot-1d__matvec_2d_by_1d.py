# case: family=tpu-dot-1d chip=clean cpu=lowers interp=clean
# intent: matrix-vector product (8, 128) f32 @ (128,) f32 -> (8,), stored as an (8, 1) column (a rank-1 dot result; the chip decides).
# grounded: jax/_src/pallas/mosaic/lowering.py _dot_general_lowering_rule (rank-1 result reaches tpu.matmul)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def matvec_kernel(m_ref, v_ref, o_ref):
    y = jnp.dot(m_ref[...], v_ref[...])
    o_ref[...] = y[:, None]


def launch(m, v):
    return pl.pallas_call(
        matvec_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 1), jnp.float32),
        interpret=INTERPRET,
    )(m, v)


def inputs():
    m = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128) / 1024.0
    v = jnp.cos(jnp.arange(128, dtype=jnp.float32))
    return (m, v)


def reference(m, v):
    import numpy as np
    return (np.asarray(m, np.float64) @ np.asarray(v, np.float64))[:, None].astype(np.float32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
