# pallas-lsp example: invalid
# note: The out spec of a GridSpec, bound to a name first, written in the pre-2024 order.
# raises: TypeError: 'function' object is not iterable
# fix: Swap the BlockSpec's arguments to (block_shape, index_map)
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


def double(x):
    out_spec = pl.BlockSpec(lambda i, j: (i, j), (8, 128))  # error
    grid_spec = pl.GridSpec(
        grid=(2, 2),
        in_specs=[pl.BlockSpec((8, 128), lambda i, j: (i, j))],
        out_specs=out_spec,
    )
    return pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid_spec=grid_spec, interpret=True)(x)


def main():
    print(double(jnp.ones((16, 256), jnp.float32))[0, :2])


if __name__ == "__main__":
    main()
