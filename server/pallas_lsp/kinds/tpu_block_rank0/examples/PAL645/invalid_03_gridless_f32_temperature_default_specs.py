# pallas-lsp example: invalid
# note: A grid-less decorated launch with no in_specs: its f32 temperature, a 0-d operand, gets the default VMEM block; in SMEM it lowers (and compiled on the chip: cases/tpu-block-rank0__probe_0d_smem_gridless.py).
# raises: ValueError: The Pallas TPU lowering currently supports only blocks of rank >= 1\.
# fix: Put the scalar in SMEM: pl.BlockSpec(memory_space=pltpu.SMEM)
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
