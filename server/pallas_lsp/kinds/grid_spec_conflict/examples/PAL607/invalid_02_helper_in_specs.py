# pallas-lsp example: invalid
# note: A helper builds the grid spec, and in_specs are still given to pallas_call.
# raises: ValueError: If `grid_spec` is specified, then `in_specs` must be `no_block_spec`
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def tiled(n, spec):
    return pl.GridSpec(grid=(n // 8,), in_specs=[spec, spec], out_specs=spec)


def add(x, y):
    spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
    grid_spec = tiled(x.shape[0], spec)
    return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid_spec=grid_spec,
                          in_specs=[spec, spec], interpret=True)(x, y)  # error


if __name__ == "__main__":
    print(add(jnp.ones((16, 128), jnp.float32), jnp.ones((16, 128), jnp.float32))[0, :2])
