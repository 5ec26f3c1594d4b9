import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 2048, 1024
BLOCK = (512, COLS)


def scale_kernel(x_ref, o_ref, acc_ref):
    acc_ref[...] = x_ref[...] * 2.0
    o_ref[...] = acc_ref[...]


def scale(x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(ROWS // BLOCK[0],),
        in_specs=[pl.BlockSpec(BLOCK, lambda i: (i, 0))],
        out_specs=pl.BlockSpec(BLOCK, lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM(BLOCK, jnp.bfloat16)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
    )(x)


def debug_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


@functools.partial(jax.jit)
def debug(x):
    return pl.pallas_call(
        debug_kernel,
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
        grid=(ROWS // BLOCK[0],),
        in_specs=[pl.BlockSpec(BLOCK, lambda i: (i, 0))],
        out_specs=pl.BlockSpec(BLOCK, lambda i: (i, 0)),
        interpret=True,
    )(x)


def main():
    x = jnp.ones((ROWS, COLS), jnp.float32)
    return scale(x), debug(x)
