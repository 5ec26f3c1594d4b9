# pallas-lsp example: valid
# note: An empty grid and an empty scratch list beside a grid spec are what JAX asks for.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def add(x, y):
    spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
    grid_spec = pl.GridSpec(grid=(x.shape[0] // 8,), in_specs=[spec, spec], out_specs=spec)
    return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid_spec=grid_spec,
                          grid=(), scratch_shapes=[], interpret=True)(x, y)


if __name__ == "__main__":
    print(add(jnp.ones((16, 128), jnp.float32), jnp.ones((16, 128), jnp.float32))[0, :2])
