# case: family=tpu-dimension-semantics-invalid chip=clean cpu=lowers interp=clean
# intent: the fixed program of reduction_partial_3d: the reduction axis marked "arbitrary" (sequential), the other two parallel.
# grounded: jax/_src/pallas/mosaic/lowering.py _get_dimension_semantics (ir.Attribute.parse of "#tpu.dimension_semantics<reduction>")
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False

B, R, C = 2, 32, 256
BLOCK_R = 8


@functools.partial(
    pl.pallas_call,
    out_shape=jax.ShapeDtypeStruct((B, 8, C), jnp.int32),
    grid=(B, C // 128, R // BLOCK_R),
    in_specs=[pl.BlockSpec((None, BLOCK_R, 128), lambda b, j, k: (b, k, j))],
    out_specs=pl.BlockSpec((None, 8, 128), lambda b, j, k: (b, 0, j)),
    compiler_params=pltpu.CompilerParams(
        dimension_semantics=(pltpu.PARALLEL, "parallel", "arbitrary")),  # DECOY
    interpret=INTERPRET,
)
def colsum_kernel(x_ref, o_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += x_ref[...]


def launch(x):
    return colsum_kernel(x)


def inputs():
    return (jnp.arange(B * R * C, dtype=jnp.int32).reshape(B, R, C) % 97,)


def reference(x):
    return x.reshape(B, R // BLOCK_R, BLOCK_R, C).sum(axis=1)


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
