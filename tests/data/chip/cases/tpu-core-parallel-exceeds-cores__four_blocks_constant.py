# case: family=tpu-core-parallel-exceeds-cores chip=raises cpu=lowers interp=clean
# intent: split four row blocks of an int32 array across TensorCores with a module-level CORE_PARALLEL semantics tuple.
# grounded: jax/_src/tpu_custom_call.py _get_active_core_count (core_parallel bound 4 passed to Mosaic); libtpu's Mosaic compares it with the chip's active cores
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False
BLOCKS = 4
SEMANTICS = (pltpu.CORE_PARALLEL,)  # FAIL


def negate_kernel(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


def launch(x):
    spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
    return pl.pallas_call(
        negate_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(BLOCKS,),
        in_specs=[spec],
        out_specs=spec,
        compiler_params=pltpu.CompilerParams(dimension_semantics=SEMANTICS),  # FAIL
        interpret=INTERPRET,
    )(x)


def inputs():
    return (jnp.arange(32 * 128, dtype=jnp.int32).reshape(32, 128),)


def reference(x):
    return -x


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
