# pallas-lsp example: valid
# note: The same row-sum with PARALLEL semantics: the blocks and results are the same, and a one-core chip runs them in turn.
# oracle: chip
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

CORES = 2


def rowsum_kernel(x_ref, o_ref):
    o_ref[...] = jnp.broadcast_to(jnp.sum(x_ref[...], axis=1, keepdims=True), o_ref.shape)


@jax.jit
def rowsum(x):
    per_core = x.shape[0] // (8 * CORES)
    spec = pl.BlockSpec((8, 128), lambda c, i: (c * per_core + i, 0))
    return pl.pallas_call(
        rowsum_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(CORES, per_core),
        in_specs=[spec],
        out_specs=spec,
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=(pltpu.PARALLEL, pltpu.ARBITRARY)),
    )(x)


def main():
    print(rowsum(jnp.ones((64, 128), jnp.float32))[0, 0])


if __name__ == "__main__":
    main()
