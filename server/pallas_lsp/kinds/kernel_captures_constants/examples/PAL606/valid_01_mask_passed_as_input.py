# pallas-lsp example: valid
# note: The clean twin of invalid_01: the triangle is an operand with its own ref.
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl

LOWER = np.tri(16, dtype=bool)


def apply_mask(scores, lower):
    return jnp.where(lower, scores, -jnp.inf)


def causal_kernel(s_ref, lower_ref, o_ref):
    o_ref[...] = apply_mask(s_ref[...], lower_ref[...])


def main():
    s = jnp.ones((16, 16), jnp.float32)
    out = pl.pallas_call(causal_kernel, out_shape=jax.ShapeDtypeStruct(s.shape, s.dtype), interpret=True)(s, LOWER)
    print(out[1, :3])


if __name__ == "__main__":
    main()
