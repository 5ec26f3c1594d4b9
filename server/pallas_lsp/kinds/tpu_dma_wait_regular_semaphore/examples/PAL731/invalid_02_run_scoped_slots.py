# pallas-lsp example: invalid
# note: Semaphores scoped with pl.run_scoped as a REGULAR((2,)) slot array, one slot per half, each copy waited through a list.
# raises: ValueError: dma_wait requires a DMA semaphore, but got a regular semaphore\.
# fix: Allocate it as pltpu.SemaphoreType.DMA((2,))
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def halves_kernel(x_hbm, o_ref):
    def body(bufs, sems):
        copies = []
        for i in range(2):
            copy = pltpu.make_async_copy(x_hbm.at[pl.ds(i * 8, 8)], bufs.at[i], sems.at[i])
            copy.start()
            copies.append(copy)
        for copy in copies:
            copy.wait()
        o_ref[...] = bufs[0] - bufs[1]

    pl.run_scoped(body, pltpu.VMEM((2, 8, 128), jnp.float32), pltpu.SemaphoreType.REGULAR((2,)))  # error


def halves(x):
    return pl.pallas_call(
        halves_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    )(x)


def main():
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(halves).trace(jax.ShapeDtypeStruct((16, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
