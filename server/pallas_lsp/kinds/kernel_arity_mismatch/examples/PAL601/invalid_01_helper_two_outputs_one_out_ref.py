# pallas-lsp example: invalid
# note: A helper builds the launch with a tuple of two outputs; the kernel has one output Ref.
# raises: TypeError: split_kernel\(\) takes 2 positional arguments but 3 were given
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def split_kernel(x_ref, lo_ref):  # error
    lo_ref[...] = x_ref[...] * 0.5


def split(x):
    out = jax.ShapeDtypeStruct(x.shape, x.dtype)
    return pl.pallas_call(split_kernel, out_shape=(out, out), interpret=True)(x)


if __name__ == "__main__":
    lo, hi = split(jnp.ones((8, 128), jnp.float32))
    print(lo[0, :2], hi[0, :2])
