# pallas-lsp example: invalid
# note: A NumPy triangle built at module level, read by a helper the kernel calls (interpret=True).
# raises: ValueError: The kernel function in the pallas_call causal_kernel at .* captures constants \[bool\[16,16\]\]\. You should pass them as inputs\.
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl

LOWER = np.tri(16, dtype=bool)


def apply_mask(scores):
    return jnp.where(LOWER, scores, -jnp.inf)  # error


def causal_kernel(s_ref, o_ref):
    o_ref[...] = apply_mask(s_ref[...])


def main():
    s = jnp.ones((16, 16), jnp.float32)
    out = pl.pallas_call(causal_kernel, out_shape=jax.ShapeDtypeStruct(s.shape, s.dtype), interpret=True)(s)
    print(out[1, :3])


if __name__ == "__main__":
    main()
