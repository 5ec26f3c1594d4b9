# case: family=tpu-dimension-semantics-length chip=raises cpu=raises interp=clean
# intent: gather 8-row bands by prefetched indices over a 2-D PrefetchScalarGridSpec grid with one dimension semantic.
# grounded: jax/_src/pallas/mosaic/lowering.py MosaicGridMapping.__init__ (len(grid) != len(dimension_semantics))
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def gather_kernel(idx_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


def launch(idx, x):
    return pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct((32, 256), x.dtype),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(4, 2),
            in_specs=[pl.BlockSpec((8, 128), lambda i, j, idx: (idx[i], j))],
            out_specs=pl.BlockSpec((8, 128), lambda i, j, idx: (i, j)),
        ),
        compiler_params=pltpu.CompilerParams(dimension_semantics=(pltpu.PARALLEL,)),  # FAIL
        interpret=INTERPRET,
    )(idx, x)


def inputs():
    return (jnp.array([7, 0, 3, 5], jnp.int32), jnp.arange(64 * 256, dtype=jnp.float32).reshape(64, 256))


def reference(idx, x):
    return x.reshape(8, 8, 256)[idx].reshape(32, 256)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
