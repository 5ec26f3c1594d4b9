# pallas-lsp example: valid
# note: The same scalar-prefetch kernel called without differentiation.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def pick_kernel(idx_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def pick(idx, x):
    return pl.pallas_call(
        pick_kernel,
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(1,),
            in_specs=[pl.BlockSpec((8, 128), lambda i, idx_ref: (idx_ref[0], 0))],
            out_specs=pl.BlockSpec((8, 128), lambda i, idx_ref: (0, 0))),
        out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype),
        interpret=True)(idx, x)


def main():
    x = jnp.ones((16, 128), jnp.float32)
    idx = jnp.array([1], jnp.int32)
    print(jax.jit(pick)(idx, x)[0, :4])


if __name__ == "__main__":
    main()
