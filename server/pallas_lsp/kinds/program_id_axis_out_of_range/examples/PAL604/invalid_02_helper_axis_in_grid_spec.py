# pallas-lsp example: invalid
# note: The helper asks for axis 2 of a two-axis grid held by a GridSpec.
# raises: ValueError: Axis 2 is out of bounds for grid \(2, 1\)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def _step():
    return pl.program_id(2)  # error


def offset_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + _step().astype(jnp.float32)


def offset(x):
    spec = pl.BlockSpec((8, 128), lambda i, j: (i, j))
    grid_spec = pl.GridSpec(grid=(2, 1), in_specs=[spec], out_specs=spec)
    return pl.pallas_call(offset_kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
                          grid_spec=grid_spec, interpret=True)(x)


if __name__ == "__main__":
    print(offset(jnp.zeros((16, 128), jnp.float32))[8, :2])
