# pallas-lsp example: invalid
# note: A helper builds the GridSpec with np.ceil, which gives a NumPy float, not an int.
# raises: ValueError: Grid must be a tuple of integers or jax\.Array
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl

ROWS = 8


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


def make_spec(n):
    spec = pl.BlockSpec((ROWS, 128), lambda i: (i, 0))
    return pl.GridSpec(grid=(np.ceil(n / ROWS),), in_specs=[spec], out_specs=spec)  # error
    # clean twin: return pl.GridSpec(grid=(pl.cdiv(n, ROWS),), in_specs=[spec], out_specs=spec)


def double(x):
    return pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid_spec=make_spec(x.shape[0]), interpret=True)(x)


if __name__ == "__main__":
    print(double(jnp.ones((32, 128), jnp.float32))[0, :4])
