# pallas-lsp example: valid
# note: Every map takes the grid index and the scalar-prefetch ref.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def gather_kernel(idx_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


def main():
    idx = jnp.array([1, 0], jnp.int32)
    x = jnp.ones((16, 128), jnp.float32)
    out = pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(2,),
            in_specs=[pl.BlockSpec((8, 128), lambda b, ids: (ids[b], 0))],
            out_specs=pl.BlockSpec((8, 128), lambda b, ids: (b, 0)),
        ),
        interpret=True,
    )(idx, x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
