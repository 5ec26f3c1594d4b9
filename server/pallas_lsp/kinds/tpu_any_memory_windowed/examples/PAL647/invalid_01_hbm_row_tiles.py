# pallas-lsp example: invalid
# note: An input left in HBM but still given a row tile and an index map that follows the grid.
# raises: ValueError: The Pallas TPU lowering currently supports in memory space ANY only blocks having the same block shape
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def copy_rows_kernel(x_hbm, o_ref):
    pltpu.sync_copy(x_hbm, o_ref)


def launch(x):
    return pl.pallas_call(
        copy_rows_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 16,),
        in_specs=[pl.BlockSpec((16, 128), lambda i: (i, 0), memory_space=pltpu.HBM)],  # error
        out_specs=pl.BlockSpec((16, 128), lambda i: (i, 0)),
    )(x)


ARGS = (jax.ShapeDtypeStruct((128, 128), jnp.float32),)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(*ARGS).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
