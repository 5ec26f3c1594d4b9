# pallas-lsp example: invalid
# note: A helper passes the output dtype where the output's type belongs.
# raises: ValueError: Invalid out_shape type: <class 'jax\._src\.numpy\.scalar_types\._ScalarMeta'>
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

OUT_DTYPE = jnp.bfloat16


def cast_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...].astype(o_ref.dtype)


def cast(x):
    return pl.pallas_call(cast_kernel, out_shape=OUT_DTYPE, interpret=True)(x)  # error


if __name__ == "__main__":
    print(cast(jnp.ones((8, 128), jnp.float32))[0, :4])
