# pallas-lsp example: valid
# note: x_hbm.at[b] (an integer index drops the dim) into slot.at[0] of a (1, 8, 128) buffer, started and waited through one descriptor.
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def pick_kernel(x_hbm, o_ref, slot, sem):
    b = pl.program_id(0)
    copy = pltpu.make_async_copy(x_hbm.at[b], slot.at[0], sem)
    copy.start()
    copy.wait()
    o_ref[...] = slot[0] + 1.0


def pick(x):
    return pl.pallas_call(
        pick_kernel,
        out_shape=jax.ShapeDtypeStruct((32, 128), jnp.float32),
        grid=(4,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((8, 128), lambda b: (b, 0)),
        scratch_shapes=[pltpu.VMEM((1, 8, 128), jnp.float32), pltpu.SemaphoreType.DMA(())],
    )(x)


def main():
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(pick).trace(jax.ShapeDtypeStruct((4, 8, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
