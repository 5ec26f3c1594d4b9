# pallas-lsp example: valid
# note: The HBM table is copied into VMEM scratch with make_async_copy, then read there.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def offset_kernel(table_ref, x_ref, o_ref, head, sem):
    copy = pltpu.make_async_copy(table_ref.at[0:8, :], head, sem)
    copy.start()
    copy.wait()
    o_ref[...] = x_ref[...] + head[...]


def launch(table, x):
    return pl.pallas_call(
        offset_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.int32),
        grid=(2,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY),
                  pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.int32), pltpu.SemaphoreType.DMA(())],
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
