# pallas-lsp example: invalid
# note: A pl.GridSpec given one BlockSpec as in_specs (a bare spec is allowed for out_specs only).
# raises: ValueError: .in_specs. must be a tuple or a list
# fix: Wrap `in_specs` in a list (one entry per operand)
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def negate_kernel(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


def main():
    x = jnp.ones((16, 128), jnp.float32)
    spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
    out = pl.pallas_call(
        negate_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid_spec=pl.GridSpec(grid=(2,), in_specs=spec, out_specs=spec),  # error
        interpret=True,
    )(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
