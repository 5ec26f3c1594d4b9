# pallas-lsp example: invalid
# note: A row-sum written for a two-TensorCore chip: the leading grid axis (2 iterations) is CORE_PARALLEL, and a TPU v5e has one TensorCore.
# raises: JaxRuntimeError: INVALID_ARGUMENT: Mosaic failed to compile TPU kernel: Core-parallel dimension 0 has iteration bound: 2, which is greater than the number of active cores: 1\.
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
            dimension_semantics=(pltpu.CORE_PARALLEL, pltpu.ARBITRARY)),  # error
    )(x)


def main():
    # Compiled for the TPU this runs on (a v5e: one TensorCore).
    print(rowsum(jnp.ones((64, 128), jnp.float32))[0, 0])


if __name__ == "__main__":
    main()
