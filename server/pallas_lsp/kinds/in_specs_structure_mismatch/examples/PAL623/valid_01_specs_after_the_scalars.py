# pallas-lsp example: valid
# note: One spec per operand after the scalar-prefetch table.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from jax.experimental.pallas import tpu as pltpu


def pick_kernel(order_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


def main():
    order = jnp.array([1, 0], jnp.int32)
    x = jnp.ones((16, 128), jnp.float32)
    rows = pl.BlockSpec((8, 128), lambda i, order: (order[i], 0))
    out = pl.pallas_call(
        pick_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(2,),
            in_specs=[rows],
            out_specs=pl.BlockSpec((8, 128), lambda i, order: (i, 0)),
        ),
        interpret=True,
    )(order, x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
