# case: family=tpu-matmul-batch-dims chip=wrong-result cpu=lowers interp=wrong-result
# intent: lax.dot_general with one batch dim on f32 (4, 8, 128) x (4, 128, 128) blocks (clean twin of the two-batch-dim kinds).
# grounded: Mosaic tpu.matmul takes one batch dim
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

INTERPRET = False
TOLERANCE = (1e-2, 1e-2)
ONE_BATCH = (((2,), (1,)), ((0,), (0,)))


def bmm_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = lax.dot_general(a_ref[...], b_ref[...], ONE_BATCH)  # DECOY


def launch(a, b):
    return pl.pallas_call(
        bmm_kernel,
        out_shape=jax.ShapeDtypeStruct((4, 8, 128), jnp.float32),
        interpret=INTERPRET,
    )(a, b)


def inputs():
    a = jnp.arange(4 * 8 * 128, dtype=jnp.float32).reshape(4, 8, 128) / 4096.0
    b = jnp.cos(jnp.arange(4 * 128 * 128, dtype=jnp.float32).reshape(4, 128, 128))
    return (a, b)


def reference(a, b):
    import numpy as np
    return np.einsum("bij,bjk->bik", np.asarray(a, np.float64), np.asarray(b, np.float64)).astype(np.float32)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
