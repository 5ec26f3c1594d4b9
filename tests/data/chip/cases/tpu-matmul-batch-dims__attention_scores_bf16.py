# case: family=tpu-matmul-batch-dims chip=raises cpu=raises interp=clean
# intent: attention scores einsum 'bhqd,bhkd->bhqk' of bf16 (2, 4, 8, 128) x (2, 4, 128, 128) blocks, f32 result (two batch dims).
# grounded: Mosaic tpu.matmul verifier ("Not implemented: Up to 1 batch dim supported"), run by func_op.verify() in the Pallas lowering
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
    s_ref[...] = jnp.einsum("bhqd,bhkd->bhqk", q_ref[...], k_ref[...],  # FAIL
                            preferred_element_type=jnp.float32)


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
