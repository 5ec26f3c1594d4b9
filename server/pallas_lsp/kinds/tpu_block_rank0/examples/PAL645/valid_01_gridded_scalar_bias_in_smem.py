# pallas-lsp example: valid
# note: The bias as a (1,) array in SMEM (the whole array, a trivial window), read as b_ref[0]: under a grid a 0-d SMEM block is a scalar window, which the chip refused (tests/data/chip/labels.json: cases/tpu-block-rank0__probe_0d_smem_grid_index_unit.py raised, cases/tpu-block-rank0__probe_1elem_smem_grid.py compiled).
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def add_bias_kernel(x_ref, b_ref, o_ref):
    o_ref[...] = x_ref[...] + b_ref[0]


def launch(x, b):
    return pl.pallas_call(
        add_bias_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 16,),
        in_specs=[pl.BlockSpec((16, 256), lambda i: (i, 0)),
                  pl.BlockSpec(memory_space=pltpu.SMEM)],
        out_specs=pl.BlockSpec((16, 256), lambda i: (i, 0)),
    )(x, b)


ARGS = (jax.ShapeDtypeStruct((64, 256), jnp.float32), jax.ShapeDtypeStruct((1,), jnp.float32))


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(*ARGS).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
