# case: family=tpu-block-rank0 chip=raises cpu=lowers interp=clean
# intent: the fixed program of f32_temperature_default_specs: in_specs with the temperature in SMEM (PAL645's fix).
# grounded: jax/_src/pallas/mosaic/lowering.py _check_block_mappings (SMEM whole-array blocks are skipped)
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

INTERPRET = False


@functools.partial(
    pl.pallas_call,
    out_shape=jax.ShapeDtypeStruct((32, 256), jnp.float32),
    grid=(2,),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
    interpret=INTERPRET,
    in_specs=[pl.BlockSpec(), pl.BlockSpec(memory_space=pltpu.SMEM)],  # FAIL
)
def soften(logits_ref, temperature_ref, o_ref):
    o_ref[...] = logits_ref[...] / temperature_ref[...]


def launch(logits, temperature):
    return soften(logits, temperature)


def inputs():
    return (jnp.arange(32 * 256, dtype=jnp.float32).reshape(32, 256) / 100.0, jnp.full((), 0.5, jnp.float32))


def reference(logits, temperature):
    return logits / temperature


def main():
    return launch(*inputs())


if __name__ == "__main__":
    print(main())
