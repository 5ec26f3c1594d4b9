# pallas-lsp example: valid
# note: The HBM input without a block shape; the kernel copies its row tile by DMA.
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def copy_rows_kernel(x_hbm, o_ref):
    i = pl.program_id(0)
    pltpu.sync_copy(x_hbm.at[pl.ds(i * 16, 16)], o_ref)


def launch(x):
    return pl.pallas_call(
        copy_rows_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 16,),
        in_specs=[pl.BlockSpec(memory_space=pltpu.HBM)],
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
