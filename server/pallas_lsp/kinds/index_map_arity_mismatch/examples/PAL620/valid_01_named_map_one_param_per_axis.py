# pallas-lsp example: valid
# note: The same launch with a map that takes both grid indices.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3.0


def tile(i, j):
    return (i, j)


def main():
    x = jnp.ones((16, 256), jnp.float32)
    out = pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(2, 2),
        in_specs=[pl.BlockSpec((8, 128), tile)],
        out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)),
        interpret=True,
    )(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
