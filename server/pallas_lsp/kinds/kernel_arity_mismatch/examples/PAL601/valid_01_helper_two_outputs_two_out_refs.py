# pallas-lsp example: valid
# note: The same helper, the kernel taking one Ref per output.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def split_kernel(x_ref, lo_ref, hi_ref):
    lo_ref[...] = x_ref[...] * 0.5
    hi_ref[...] = x_ref[...] * 2.0


def split(x):
    out = jax.ShapeDtypeStruct(x.shape, x.dtype)
    return pl.pallas_call(split_kernel, out_shape=(out, out), interpret=True)(x)


if __name__ == "__main__":
    lo, hi = split(jnp.ones((8, 128), jnp.float32))
    print(lo[0, :2], hi[0, :2])
