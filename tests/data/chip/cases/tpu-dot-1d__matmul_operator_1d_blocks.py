# case: family=tpu-dot-1d chip=raises cpu=raises interp=clean
# intent: similarity score of two whole (512,) f32 vectors with `@` in a helper, broadcast into an (8, 128) tile.
# grounded: jax/_src/pallas/mosaic/lowering.py _dot_general_lowering_rule (assert isinstance(out_type, ir.ShapedType): a rank-0 dot result is not a vector)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False


def _score(u, v):
    return u @ v  # FAIL


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
