# pallas-lsp example: valid
# note: A grid-less launch: the f32 temperature in SMEM (its whole 0-d array), the logits a whole VMEM block (a grid-less 0-d SMEM operand compiled on the chip: tests/data/chip/labels.json, cases/tpu-block-rank0__probe_0d_smem_gridless.py).
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh

ROWS, COLS = 32, 256


@functools.partial(
    pl.pallas_call,
    out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.float32),
    in_specs=[pl.BlockSpec(), pl.BlockSpec(memory_space=pltpu.SMEM)],
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
