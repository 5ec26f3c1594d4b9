# pallas-lsp example: invalid
# note: A helper builds the spec whose map looks up the block in a 2-D jnp table bound at import.
# raises: ValueError: Index map function .* must not capture constants
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

TILE_ORDER = jnp.asarray([[1, 0], [0, 1]], dtype=jnp.int32)


def tile_copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def shuffled_tiles(block):
    return pl.BlockSpec(block, lambda i, j: (TILE_ORDER[i, j], j))  # error


def shuffle(x):
    return pl.pallas_call(
        tile_copy_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(2, 2),
        in_specs=[shuffled_tiles((8, 128))],
        out_specs=pl.BlockSpec((8, 128), lambda i, j: (i, j)),
        interpret=True,
    )(x)


def main():
    print(shuffle(jnp.ones((16, 256), jnp.float32))[0, :2])


if __name__ == "__main__":
    main()
