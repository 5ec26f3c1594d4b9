# pallas-lsp example: valid
# note: The fixed counter: the signal names one semaphore of the grid, flags.at[row, 0].
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AbstractDevice, AbstractMesh, AxisType, use_abstract_mesh


def tick(flags, row):
    pl.semaphore_signal(flags.at[row, 0], 1)


def count_kernel(x_ref, o_ref, flags):
    tick(flags, 1)
    pl.semaphore_wait(flags.at[1, 0], 1)
    o_ref[...] = x_ref[...] + 1.0


def count(x):
    return pl.pallas_call(
        count_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        scratch_shapes=[pltpu.SemaphoreType.REGULAR((2, 3))],
    )(x)


def main():
    mesh = AbstractMesh((1,), ("d",), (AxisType.Explicit,),
                        abstract_device=AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu"))
    with use_abstract_mesh(mesh):
        jax.jit(count).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
    print("lowered")


if __name__ == "__main__":
    main()
