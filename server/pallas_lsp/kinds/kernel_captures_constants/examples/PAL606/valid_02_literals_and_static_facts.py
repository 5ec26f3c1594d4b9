# pallas-lsp example: valid
# note: Python floats, a NumPy scalar, a 0-d NumPy array and an array's shape are literals: no constant is captured.
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl

SCALE = 0.5
BIAS = np.float32(1.0)
FLOOR = np.array(-2.0, dtype=np.float32)
TABLE = jnp.arange(128, dtype=jnp.float32)


def affine_kernel(x_ref, o_ref):
    width = TABLE.shape[0]
    o_ref[...] = jnp.maximum(x_ref[...] * SCALE + BIAS, FLOOR) + width


def main():
    x = jnp.ones((8, 128), jnp.float32)
    print(pl.pallas_call(affine_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)[0, :2])


if __name__ == "__main__":
    main()
