# pallas-lsp example: invalid
# note: jax 0.10 compiles a GPU pallas_call without Triton params with Mosaic GPU, whose pipeline refuses scalar-prefetch operands too.
# raises: NotImplementedError: Scalar prefetch not supported in Mosaic GPU lowering\.
# oracle: lower-cuda
# jax: 0.10.2
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

TILE = 8


def gather_kernel(rows_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


def gather_tiles(rows, x):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,  # error
        grid=(rows.shape[0],),
        in_specs=[pl.BlockSpec((TILE, 128), lambda i, rows: (rows[i], 0))],
        out_specs=pl.BlockSpec((TILE, 128), lambda i, rows: (i, 0)),
    )
    return pl.pallas_call(gather_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid_spec=grid_spec)(rows, x)


def main():
    rows = jax.ShapeDtypeStruct((3,), jnp.int32)
    x = jax.ShapeDtypeStruct((3 * TILE, 128), jnp.float32)
    print(jax.jit(gather_tiles).trace(rows, x).lower(lowering_platforms=("cuda",)).as_text()[:40])


if __name__ == "__main__":
    main()
