# pallas-lsp example: invalid
# note: A helper slices rows of a table kept in HBM (memory_space=pltpu.HBM).
# raises: ValueError: Loads are only allowed on VMEM and SMEM references\.$
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def _head_rows(table_ref):
    return table_ref[0:8, :]  # error


def offset_kernel(table_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] + _head_rows(table_ref)


def launch(table, x):
    return pl.pallas_call(
        offset_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.int32),
        grid=(2,),
        in_specs=[pl.BlockSpec(memory_space=pltpu.HBM),
                  pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
    )(table, x)


def inputs():
    return (jnp.arange(32 * 128, dtype=jnp.int32).reshape(32, 128),
            jnp.ones((16, 128), jnp.int32))



def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    args = inputs()
    with use_abstract_mesh(mesh):
        jax.jit(launch).trace(*args).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
