# pallas-lsp example: valid
# note: A REGULAR semaphore used for what it is for, semaphore_signal/semaphore_wait, beside a DMA semaphore for the copy.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def fetch_kernel(x_hbm, o_ref, buf, dma_sem, done):
    pltpu.async_copy(x_hbm, buf, dma_sem).wait()
    pl.semaphore_signal(done, 1)
    pl.semaphore_wait(done, 1)
    o_ref[...] = buf[...] * 2.0


def double(x):
    return pl.pallas_call(
        fetch_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.REGULAR],
    )(x)


def main():
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(double).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
