# pallas-lsp example: valid
# note: The table is the scalar-prefetch operand; the map indexes the ref it is given.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

TILE_ORDER = jnp.asarray([[1, 0], [0, 1]], dtype=jnp.int32)


def tile_copy_kernel(order_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


def shuffled_tiles(block):
    return pl.BlockSpec(block, lambda i, j, order: (order[i, j], j))


def shuffle(x):
    return pl.pallas_call(
        tile_copy_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(2, 2),
            in_specs=[shuffled_tiles((8, 128))],
            out_specs=pl.BlockSpec((8, 128), lambda i, j, order: (i, j)),
        ),
        interpret=True,
    )(TILE_ORDER, x)


def main():
    print(shuffle(jnp.ones((16, 256), jnp.float32))[0, :2])


if __name__ == "__main__":
    main()
