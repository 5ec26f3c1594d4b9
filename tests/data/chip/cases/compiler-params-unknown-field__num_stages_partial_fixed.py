# case: family=compiler-params-unknown-field chip=raises cpu=lowers interp=clean
# intent: the fixed program of num_stages_partial (num_stages= removed): a GPU pipelining knob (num_stages) passed to pltpu.CompilerParams inside a functools.partial pallas_call decorator; int8 blocks.
# grounded: jax/_src/pallas/mosaic/core.py CompilerParams.__init__ (TypeError: unexpected keyword argument 'num_stages')
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False

R, C = 64, 256


@functools.partial(
    pl.pallas_call,
    out_shape=jax.ShapeDtypeStruct((R, C), jnp.int8),
    grid=(R // 32,),
    in_specs=[pl.BlockSpec((32, C), lambda i: (i, 0))],
    out_specs=pl.BlockSpec((32, C), lambda i: (i, 0)),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),  # DECOY
    interpret=INTERPRET,
)
def negate_kernel(x_ref, o_ref):
    o_ref[...] = -x_ref[...]


def launch(x):
    return negate_kernel(x)


def inputs():
    return ((jnp.arange(R * C, dtype=jnp.int32) % 100 - 50).astype(jnp.int8).reshape(R, C),)


def reference(x):
    return -x


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
