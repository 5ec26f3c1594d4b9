# pallas-lsp example: invalid
# note: A manual HBM-to-VMEM fetch whose scratch semaphore is REGULAR; the descriptor's wait needs a DMA semaphore.
# raises: ValueError: dma_wait requires a DMA semaphore, but got a regular semaphore\.
# fix: Allocate it as pltpu.SemaphoreType.DMA
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def fetch_kernel(x_hbm, o_ref, buf, sem):
    cp = pltpu.make_async_copy(x_hbm, buf, sem)
    cp.start()
    cp.wait()
    o_ref[...] = buf[...] + 1


def add_one(x):
    return pl.pallas_call(
        fetch_kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.int32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((16, 128), jnp.int32), pltpu.SemaphoreType.REGULAR],  # error
    )(x)


def main():
    # A TPU target on a CPU-only machine: lower for it under an abstract TPU device.
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(add_one).trace(jax.ShapeDtypeStruct((16, 128), jnp.int32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
