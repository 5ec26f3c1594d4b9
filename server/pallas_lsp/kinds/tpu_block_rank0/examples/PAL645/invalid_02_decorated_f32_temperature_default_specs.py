# pallas-lsp example: invalid
# note: A decorated gridded launch with no in_specs: its f32 temperature, a 0-d operand, gets the default VMEM block. No fix: under a grid a 0-d SMEM block is a scalar window, which the chip refused (tests/data/chip/labels.json, cases/tpu-block-rank0__f32_temperature_default_specs_fixed.py).
# raises: ValueError: The Pallas TPU lowering currently supports only blocks of rank >= 1\.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

ROWS, COLS = 32, 256


@functools.partial(  # error
    pl.pallas_call,
    out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
    grid=(2,),
    compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
)
def soften(logits_ref, temperature_ref, o_ref):
    o_ref[...] = logits_ref[...] / temperature_ref[...]


ARGS = (jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32), jax.ShapeDtypeStruct((), jnp.float32))


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(soften).trace(*ARGS).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
