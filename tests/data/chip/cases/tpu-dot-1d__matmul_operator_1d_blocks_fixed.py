# case: family=tpu-dot-1d chip=clean cpu=lowers interp=clean
# intent: the fixed program of tpu-dot-1d__matmul_operator_1d_blocks: the inner product as jnp.sum(u * v).
# grounded: fix of PAL710 (elementwise product and a full reduction instead of a rank-0 dot)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def _score(u, v):
    return jnp.sum(u * v)


def score_kernel(u_ref, v_ref, o_ref):
    s = _score(u_ref[...], v_ref[...])
    o_ref[...] = jnp.broadcast_to(s, o_ref.shape)


def launch(u, v):
    return pl.pallas_call(
        score_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        interpret=INTERPRET,
    )(u, v)


def inputs():
    u = jnp.sin(jnp.arange(512, dtype=jnp.float32) * 0.01)
    v = jnp.cos(jnp.arange(512, dtype=jnp.float32) * 0.02)
    return (u, v)


def reference(u, v):
    import numpy as np
    return np.full((8, 128), np.dot(np.asarray(u, np.float64), np.asarray(v, np.float64)), np.float32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
