# case: family=tpu-matmul-batch-dims chip=clean cpu=lowers interp=clean
# intent: the fixed program of tpu-matmul-batch-dims__attention_scores_bf16: batch and head folded into one batch dim by reshapes.
# grounded: fix of PAL712 (one batch dim: 'nqd,nkd->nqk' on (B*H, Q, D))
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

INTERPRET = False
TOLERANCE = (2e-2, 2e-2)

B, H, Q, D = 2, 4, 8, 128


def inputs():
    q = (jnp.sin(jnp.arange(B * H * Q * D, dtype=jnp.float32).reshape(B, H, Q, D) * 0.01)).astype(jnp.bfloat16)
    k = (jnp.cos(jnp.arange(B * H * D * D, dtype=jnp.float32).reshape(B, H, D, D) * 0.02)).astype(jnp.bfloat16)
    return (q, k)


def reference(q, k):
    import numpy as np
    return np.einsum("bhqd,bhkd->bhqk", np.asarray(q, np.float64), np.asarray(k, np.float64)).astype(np.float32)


def scores_kernel(q_ref, k_ref, s_ref):
    q = q_ref[...].reshape(B * H, Q, D)
    k = k_ref[...].reshape(B * H, D, D)
    s = jnp.einsum("nqd,nkd->nqk", q, k, preferred_element_type=jnp.float32)
    s_ref[...] = s.reshape(B, H, Q, D)


def launch(q, k):
    return pl.pallas_call(
        scores_kernel,
        out_shape=jax.ShapeDtypeStruct((B, H, Q, D), jnp.float32),
        interpret=INTERPRET,
    )(q, k)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
