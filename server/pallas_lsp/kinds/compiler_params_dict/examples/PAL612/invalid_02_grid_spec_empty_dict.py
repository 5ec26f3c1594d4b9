# pallas-lsp example: invalid
# note: Even an empty dict is unhashable: no backend named, so no mechanical fix.
# raises: TypeError: unhashable type: 'dict'
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def inc_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1


def inc(x):
    spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
    grid_spec = pl.GridSpec(grid=(x.shape[0] // 8,), in_specs=[spec], out_specs=spec)
    return pl.pallas_call(inc_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid_spec=grid_spec,
                          compiler_params=dict(), interpret=True)(x)  # error


if __name__ == "__main__":
    print(inc(jnp.zeros((16, 128), jnp.float32))[0, :4])
