# pallas-lsp example: valid
# note: Axis -1 is the grid's last axis.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def _step():
    return pl.program_id(-1)


def offset_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + _step().astype(jnp.float32)


def offset(x):
    spec = pl.BlockSpec((8, 128), lambda i, j: (i, j))
    grid_spec = pl.GridSpec(grid=(2, 1), in_specs=[spec], out_specs=spec)
    return pl.pallas_call(offset_kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
                          grid_spec=grid_spec, interpret=True)(x)


if __name__ == "__main__":
    print(offset(jnp.zeros((16, 128), jnp.float32))[8, :2])
