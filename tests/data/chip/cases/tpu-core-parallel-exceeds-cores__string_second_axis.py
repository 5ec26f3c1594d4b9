# case: family=tpu-core-parallel-exceeds-cores chip=raises cpu=lowers interp=clean
# intent: a (2, 2) grid whose second axis is meant to be split over two cores, written with string semantics ("arbitrary", "core_parallel").
# grounded: jax/_src/tpu_custom_call.py _get_active_core_count (core_parallel dimension 1, bound 2); libtpu's Mosaic compares it with the chip's active cores
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


def add_kernel(a_ref, b_ref, o_ref):
    o_ref[...] = a_ref[...] + b_ref[...]


@functools.partial(jax.jit, static_argnames=("cores",))
def launch(a, b, cores=2):
    spec = pl.BlockSpec((8, 128), lambda i, j: (i, j))
    return pl.pallas_call(
        add_kernel,
        out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype),
        grid=(a.shape[0] // 8, cores),
        in_specs=[spec, spec],
        out_specs=spec,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary", "core_parallel")),  # FAIL
        interpret=INTERPRET,
    )(a, b)


def inputs():
    a = jnp.arange(16 * 256, dtype=jnp.float32).reshape(16, 256)
    return (a, a * 2.0)


def reference(a, b):
    return a + b


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
